/* gate-zh.js - the Chinese wording of the gate's checks (a check's code, its args in braces)
 * and of its reason codes: the one copy that rag-serve's page (a <script> before serve.js) and
 * report.html (rag-report inlines it before report.js) both read. English needs none: a check's
 * message is already its English wording (lib/gate.c). */
var RAG_GATE_ZH = {
	rc_not_applicable: "不适用", rc_no_category_records: "本次运行没有此类别的记录",
	ck_no_records: "没有记录：空运行不能通过",
	ck_not_run: "{metric}：未运行（不在本次运行的指标中），不检查其阈值",
	ck_skipped: "{metric}：{records} 条记录中 0 条计算了分数（{reason}），跳过门禁",
	ck_regression: "{metric} 均值变化 {delta}，{conf}% 置信区间 [{lo}, {hi}]",
	ck_category_mean: "类别“{category}”的 {metric} 均值 {mean} {op} {threshold}（{records} 条记录）",
	ck_category_no_score: "{metric}：类别“{category}”没有记录有分数",
	ck_category_not_run: "{metric}：未运行，不检查类别“{category}”的均值",
	ck_nulls: "{metric}：{applicable} 条记录中 {nulls} 条没有分数（{rate}；max_error_rate {max}）",
	ck_mean: "{metric} 均值 {mean} {op} {threshold}",
	ck_no_score: "{metric}：没有记录有分数",
	ck_flips: "{metric}：{flips} 条记录在重复评测中结论翻转",
	ck_no_scores: "没有记录在 scores.* 中有数值：请先运行评分工具",
	ck_unreadable: "{records} 行中 {unreadable} 行无法读取为记录",
	ck_pass_rate: "{of} 条记录中 {passed} 条通过（{rate}；min_pass_rate {min}）"
};
