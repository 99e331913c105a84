/* report.js - the script of a rag-report page (inlined by rag-report): the tabs, and the
 * Records, Compare and History tabs built from the JSON block #rag-data. Every text from the
 * data goes in with textContent (or an SVG <title>'s), never as markup. Rows are drawn a page
 * at a time, so a run of 20,000 records filters and sorts without freezing. */
(function (start) {
	'use strict';
	var D = JSON.parse(document.getElementById('rag-data').textContent), z = D.records, bin, u, i;
	/* rag-report --compress: the records as one string, gzip then base64, where a record is an
	 * object; the browser's own gunzip (DecompressionStream) gives back their JSON */
	if (!(z && z.length === 1 && typeof z[0] === 'string')) return start(D);
	if (typeof DecompressionStream !== 'function') {
		D.records = [];
		return start(D);
	}
	bin = atob(z[0]);
	u = new Uint8Array(bin.length);
	for (i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
	new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (t) {
		D.records = JSON.parse('[' + t + ']');
		start(D);
	});
})(function (D) {
	'use strict';
	var S = D.summary || {};
	var R = D.records || [];
	var PAGE = 100;
	var SVGNS = 'http://www.w3.org/2000/svg';

	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined && text !== null) e.textContent = String(text);
		return e;
	}
	function add(parent, child) { parent.appendChild(child); return child; }
	function svg(tag, attrs) {
		var e = document.createElementNS(SVGNS, tag), k;
		for (k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, String(attrs[k]));
		return e;
	}
	function num(x) { return typeof x === 'number' && isFinite(x) ? x.toFixed(3) : '\u2013'; }
	function signed(x) { return typeof x === 'number' ? (x >= 0 ? '+' : '') + x.toFixed(3) : '\u2013'; }
	function str(x) { return x === undefined || x === null ? '' : String(x); }

	var metrics = (S.metrics || []).map(function (m) { return m.metric; });
	var thr = {};
	(S.metrics || []).forEach(function (m) { thr[m.metric] = {rec: m.threshold_record, mean: m.threshold_mean}; });

	/* ------------------------------------------------------------ language */
	/* English and Chinese: ?lang=zh (or en) in the URL, else the switch's choice kept in
	 * localStorage, else the browser's language. Only the page's own words change; the run's
	 * text is shown as it is. */
	var L = {
		en: {summary: 'Summary', records: 'Records', compare: 'Compare', history: 'History', checks: 'Checks',
			'checks-ok': 'checks passed or skipped', hints: 'Where to look', lowest: 'Failing records', distribution: 'Distribution',
			causes: 'What to fix first', 'causes-note': 'failing records by cause, the most first; each opens to its records, farthest below the threshold first',
			'no-causes': 'No record failed.', below: '{m} below {t}', isnull: '{m}: no score', noanswer: 'no answer ({t} failed)',
			error: 'error: {t}', 'outage-judge': 'the judge failed', 'outage-service': 'the RAG service failed',
			miss: 'retrieval missed: no relevant document retrieved', nrec: '{n} records', nrec1: '1 record', more: 'and {n} more: the Records tab has them all',
			search: 'Search', category: 'Category', result: 'Result', errors: 'Errors', metric: 'Metric', prev: 'Previous', next: 'Next',
			'why-failed': 'Why it failed', notes: 'Notes', question: 'Question', answer: 'Answer', reference: 'Reference', contexts: 'Contexts',
			'one-run': 'One run: a trend needs two or more. Its means are in the table below.', other: 'English',
			'show-failed': 'show them', 'c-id': 'id', 'c-category': 'category', 'c-question': 'question', 'c-answer': 'answer',
			'c-why': 'why it failed', by: 'By',
			'v-PASS': 'PASS', 'v-FAIL': 'FAIL', 'v-SUMMARY': 'SUMMARY', 'ph-search': 'id, question, answer, reference',
			all: 'all', 'f-passed': 'passed', 'f-failed': 'failed (any)', 'f-errored': 'errored', 'f-none-judged': 'all (no threshold: none judged)',
			'f-with': 'with errors', 'f-without': 'without errors', 'f-any': '(any)', 'op-lt': 'below', 'op-ge': 'at least', 'op-null': 'is null',
			'n-of-records': '{a} of {n} records', 'col-id': 'id', 'col-category': 'category', 'col-result': 'result',
			'col-question': 'question', 'col-errors': 'errors', 'st-pass': 'pass', 'st-fail': 'FAIL', 'st-error': 'ERROR',
			'st-none': 'not judged', 'n-a': 'n/a', 'null': 'null', none: '(none)', yes: 'yes', no: 'no', 'v-yes': '\u2714 yes', 'v-no': '\u2718 no',
			'src': 'source: {s}', 'na-why': 'not applicable: {w}', 'per-rec': 'per-record threshold {t}', 'from': 'from {f}',
			'claims-of': 'Claims: {m}', 'h-claim': 'claim', 'h-verdict': 'verdict', 'h-score': 'score', 'h-reason': 'reason',
			'verdict-of': 'Verdict: {m}', errors2: 'Errors',
			'by-id': 'Records by id', show: 'Show', regressed: 'regressed', improved: 'improved', unchanged: 'unchanged',
			'n-matched': '{a} of {n} matched records', 'col-change': 'change', 'delta-m': '\u0394 {m}', 'base-side': 'Baseline: {n}',
			'this-side': 'This run: {n}', 'no-answer': '(no answer)', 'q-is': 'question: {q}', lost: 'lost', gained: 'gained',
			'c-metric': 'metric', 'c-pairs': 'pairs', 'c-baseline': 'baseline', 'c-now': 'now', 'c-delta': 'delta', 'c-change': 'change',
			'c-interval': '{c}% bootstrap interval', 'ch-regression': 'regression', 'ch-improvement': 'improvement', 'ch-none': 'none',
			'no-history': 'No history: give earlier runs before this one, or --history FILE.', 'runs-oldest': '{n} runs, oldest first.',
			'run-1': '1 run, oldest first.', 'run-title': 'Run {r}', 'this-report': ' (this report)', 'h-started': 'started', 'h-run': 'run',
			'h-label': 'label', 'h-commit': 'commit', 'h-testset': 'test set', 'h-records': 'records', 'h-passed': 'passed', 'h-file': 'file',
			'show-summary': 'Show this run\u2019s summary', 'open-report': 'Open this run\u2019s report', 'cap-mean': 'mean {m} per run',
			'cap-date': ', by date', 'cap-dashed': '; dashed: the gate\u2019s threshold', 'click-point': 'Click a point to open its run.',
			'thr-of': 'threshold of the mean {t}', 'page-info': 'rows {a}\u2013{b} of {n}, page {p} of {ps}', 'no-rows': 'no rows',
			cost: 'Cost', 'cost-tool': 'tool', 'cost-stage': 'stage', 'cost-judge': 'judge', 'cost-calls': 'calls',
			'cost-prompt': 'prompt tokens', 'cost-completion': 'completion tokens', 'cost-cost': 'cost', 'cost-total': 'total',
			'cost-no-price': 'no price', 'cost-unknown': 'unknown', 'no-thresholds': 'no thresholds',
			'end': ''},
		zh: {summary: '概要', records: '记录', compare: '对比', history: '历史', checks: '检查项',
			cost: '费用', 'cost-tool': '工具', 'cost-stage': '阶段', 'cost-judge': '评审模型', 'cost-calls': '调用次数',
			'cost-prompt': '提示词令牌', 'cost-completion': '生成令牌', 'cost-cost': '费用', 'cost-total': '合计',
			'cost-no-price': '无价格', 'cost-unknown': '未知', 'no-thresholds': '未配置阈值',
			'cost-cached': '提示词令牌 {p} 个，其中 {c} 个由服务商缓存（按 cached_input 计价）。',
			'cost-batch': '{n} 个请求经批量接口回答：按其价格 {b}，按上表的标价 {l}；合计按批量价格计算。',
			'cost-no-price-for': '没有模型 {m} 的价格', 'cost-no-batch-price': '没有模型 {m} 的批量价格（prices.{m}.batch_input 与 batch_output，或 batch_discount）',
			'w-self': '警告：自我评审：评审模型“{m}”也生成了 {n} 条记录（共 {of} 条）的回答，其分数可能偏高',
			'checks-ok': '通过或跳过的检查项', hints: '排查建议', lowest: '未通过的记录', distribution: '分布',
			causes: '先修复什么', 'causes-note': '未通过的记录按原因分组，数量多的在前；展开可看记录，低于阈值最多的在前',
			'no-causes': '没有未通过的记录。', below: '{m} 低于 {t}', isnull: '{m}：没有分数', noanswer: '没有回答（{t} 失败）',
			error: '错误：{t}', 'outage-judge': '评审模型调用失败', 'outage-service': 'RAG 服务调用失败',
			miss: '检索未命中：没有找回相关文档', nrec: '{n} 条记录', nrec1: '1 条记录', more: '还有 {n} 条，全部见“记录”标签页',
			search: '搜索', category: '类别', result: '结果', errors: '错误', metric: '指标', prev: '上一页', next: '下一页',
			'why-failed': '未通过原因', notes: '备注', question: '问题', answer: '回答', reference: '参考答案', contexts: '上下文',
			'one-run': '只有一次运行：趋势需要至少两次。均值见下表。', other: '中文',
			'show-failed': '展开查看', 'c-id': '编号', 'c-category': '类别', 'c-question': '问题', 'c-answer': '回答',
			'c-why': '未通过原因', by: '分组：',
			'v-PASS': '通过', 'v-FAIL': '未通过', 'v-SUMMARY': '概要', 'ph-search': '编号、问题、回答、参考答案',
			all: '全部', 'f-passed': '通过', 'f-failed': '未通过（任一原因）', 'f-errored': '出错', 'f-none-judged': '全部（没有阈值：均未判定）',
			'f-with': '有错误', 'f-without': '无错误', 'f-any': '（任意）', 'op-lt': '低于', 'op-ge': '不低于', 'op-null': '为空',
			'n-of-records': '{n} 条记录中的 {a} 条', 'col-id': '编号', 'col-category': '类别', 'col-result': '结果',
			'col-question': '问题', 'col-errors': '错误', 'st-pass': '通过', 'st-fail': '未通过', 'st-error': '出错',
			'st-none': '未判定', 'n-a': '不适用', 'null': '空', none: '（无）', yes: '是', no: '否', 'v-yes': '\u2714 是', 'v-no': '\u2718 否',
			'src': '来源：{s}', 'na-why': '不适用：{w}', 'per-rec': '单条阈值 {t}', 'from': '依据：{f}',
			'claims-of': '陈述：{m}', 'h-claim': '陈述', 'h-verdict': '判定', 'h-score': '分数', 'h-reason': '理由',
			'verdict-of': '判定：{m}', errors2: '错误',
			'by-id': '按编号对比的记录', show: '显示', regressed: '变差', improved: '变好', unchanged: '不变',
			'n-matched': '{n} 条配对记录中的 {a} 条', 'col-change': '变化', 'delta-m': '\u0394 {m}', 'base-side': '基准：{n}',
			'this-side': '本次运行：{n}', 'no-answer': '（没有回答）', 'q-is': '问题：{q}', lost: '丢失', gained: '新得',
			'c-metric': '指标', 'c-pairs': '配对数', 'c-baseline': '基准', 'c-now': '本次', 'c-delta': '差值', 'c-change': '变化',
			'c-interval': '{c}% 自助法置信区间', 'ch-regression': '退步', 'ch-improvement': '进步', 'ch-none': '无显著变化',
			'no-history': '没有历史：请提供此前的运行，或使用 --history FILE。', 'runs-oldest': '{n} 次运行，从早到晚。',
			'run-1': '1 次运行。', 'run-title': '运行 {r}', 'this-report': '（本报告）', 'h-started': '开始时间', 'h-run': '运行',
			'h-label': '标签', 'h-commit': '提交', 'h-testset': '测试集', 'h-records': '记录数', 'h-passed': '通过', 'h-file': '文件',
			'show-summary': '查看本次运行的概要', 'open-report': '打开该运行的报告', 'cap-mean': '每次运行的 {m} 均值',
			'cap-date': '，按日期', 'cap-dashed': '；虚线：门禁阈值', 'click-point': '点击一个点可打开对应的运行。',
			'thr-of': '均值阈值 {t}', 'page-info': '第 {a}\u2013{b} 行，共 {n} 行，第 {p}/{ps} 页', 'no-rows': '没有行',
			'card-stats': '中位数 {md} · p10 {p10} · 最小值 {mn}', 'card-on': '{n} 条记录中 {s} 条计算了分数',
			'card-na': '，{n} 条不适用', 'card-null': '，{n} 条为空', 'card-pass': '{p} 条通过，{f} 条未通过（占 {n} 条的 {r}%）',
			'card-flips': '{n} 条在重复评测中翻转', 'card-from': '相关性依据：{f}', 'from-ids': '相关编号（{n} 条记录）',
			'from-verdicts': '评审模型的分块判定（{n} 条记录）', 'from-similarity': '与参考上下文的相似度（{n} 条记录）',
			st_pass: '通过', st_failure: '未通过', st_skipped: '跳过',
			'cap-rec': '{m}：低于单条阈值 {t} 为红色，跨越阈值为琥珀色，不低于为绿色', 'cap-mean-thr': '{m}：低于均值阈值 {t} 为红色，不低于为绿色',
			'cap-none': '{m}：没有阈值',
			'w-below_record': '{metric} {score} 低于单条阈值 {threshold}{cat}', 'w-cat': '（类别“{category}”的阈值）',
			'w-no_pass_verdict': '{metric} 没有通过与否的判定（verdicts.{metric}）', 'w-verdict_fail': '{metric}：工具判定为未通过',
			'w-flips': '{metric}：重复评测的结果跨越阈值翻转（--fail-on-flip）', 'w-missing': '{metric} 缺失', 'w-null': '{metric} 为空',
			'w-not_number': '{metric} 不是数值', 'w-error': '{who}错误：{message}', 'w-unsupported': '{metric}：不受支持的陈述：{text}',
			'w-irrelevant': '{metric}：不相关：{text}', 'w-rejected': '{metric}：否定判定：{text}', 'w-more': '{metric}：另有 {n} 条',
			'end': ''}
	};
	/* the gate's checks in Chinese: gate-zh.js, the one copy this page shares with rag-serve's page */
	Object.keys(RAG_GATE_ZH).forEach(function (k) { L.zh[k] = RAG_GATE_ZH[k]; });
	function pickLang() {
		var m = /[?&]lang=(en|zh)\b/.exec(location.search), v = null;
		if (m) return m[1];
		try { v = localStorage.getItem('rag-report-lang'); } catch (e) { v = null; }
		if (v === 'en' || v === 'zh') return v;
		return /^zh\b/i.test(navigator.language || '') ? 'zh' : 'en';
	}
	var lang = pickLang();
	function say(key, vars) {
		var t = (L[lang] && L[lang][key]) || L.en[key] || key;
		return t.replace(/\{(\w+)\}/g, function (all, k) { return vars && k in vars ? String(vars[k]) : all; });
	}
	/* The page's head and the Compare tab's sentence are written by rag-report in English; in
	 * Chinese they are said again here from the same numbers (D.summary, the gate's), and the
	 * English put back when the page switches back. */
	var EXIT_ZH = ['门禁通过', '门禁未通过', '用法或配置错误', '有记录因输入数据无法评分', '有记录因评审模型或 RAG 服务失败无法评分',
		'内部或系统错误'];
	function countsZh(s) {
		var n = s.records || 0, e = s.errored || 0, p = s.passed || 0, of = typeof s.pass_rate_of === 'number' ? s.pass_rate_of : n - e, t;
		if (!D.gated) return n + ' 条记录，' + e + ' 条出错或为空';
		t = n + ' 条记录：' + p + ' 条通过';
		if (of > 0) t += e > 0 ? '（占 ' + of + ' 条无错误或空值记录的 ' + (100 * p / of).toFixed(1) + '%）' : '（占 ' + of + ' 条的 ' + (100 * p / of).toFixed(1) + '%）';
		return t + '，' + (of - p) + ' 条未通过，' + e + ' 条出错或为空';
	}
	function keep(id) {
		var e = document.getElementById(id);
		if (e && !e.enNodes) e.enNodes = Array.prototype.map.call(e.childNodes, function (n) { return n.cloneNode(true); });
		return e;
	}
	function restore(e) {
		if (!e || !e.enNodes) return;
		e.textContent = '';
		e.enNodes.forEach(function (n) { e.appendChild(n.cloneNode(true)); });
	}
	function sayHead() {
		var v = keep('verdict'), x = keep('exit-status'), c = keep('compare-head'), ci = keep('c-interval'), nb = keep('no-baseline');
		var B = S.baseline || {}, word, st;
		[v, x, c, ci, nb].forEach(restore);
		if (lang !== 'zh') return;
		if (v) {
			word = v.querySelector('.verdict');
			st = word ? word.textContent : '';
			if (word) word.textContent = say('v-' + st);
			v.textContent = '';
			if (word) v.appendChild(word);
			v.appendChild(document.createTextNode(' ' + str(D.run) + '：' + countsZh(S) + '。'));
		}
		if (x && S.verdict) {
			st = S.verdict.exit_status;
			x.textContent = '退出状态 ' + st + '：' + (EXIT_ZH[st] || '未知') + '。';
		}
		if (c) c.textContent = '与 ' + str(B.file) + ' 对比：' + (B.regressed_records || 0) + ' 条变差（其中 ' + (B.lost_records || 0) +
			' 条丢失分数），' + (B.improved_records || 0) + ' 条变好，' + (B.unchanged_records || 0) + ' 条不变（按编号配对 ' +
			(B.matched || 0) + ' 条记录；变差：某个指标下降超过 ' + B.regression + ' 或丢失分数；变好：上升超过 ' + B.regression +
			' 或新得分数，且无变差；均值取两边都有分数的配对）；本次独有 ' + (B.only_current_count || 0) + ' 条，基准独有 ' +
			(B.only_baseline_count || 0) + ' 条。';
		if (ci) ci.textContent = say('c-interval', {c: Math.round((B.confidence || 0.95) * 100)});
		if (nb) nb.textContent = '没有基准：用 -b BASELINE.jsonl 指定一个。';
		saySummary();
	}
	/* The Summary's hints and metric cards, written by rag-report in English: in Chinese, the
	 * hints as share/hints/zh.txt says them (each hint's texts.zh, filled by rag-report) and the
	 * cards said again from the same numbers (D.summary.metrics); the English put back on the
	 * switch back. */
	function saySummary() {
		var hs = keep('hints'), cards = document.querySelectorAll('#summary .cards .card'), fl, ok;
		restore(hs);
		Array.prototype.forEach.call(cards, function (c, i) { c.id = c.id || 'card-' + i; restore(keep(c.id)); });
		fl = keep('failed-list');
		restore(fl);
		ok = document.querySelector('#summary details.checks-ok');
		if (ok) ok.id = 'checks-ok-list';
		restore(keep('checks'));
		restore(keep('checks-ok-list'));
		var caps = document.querySelectorAll('#distribution figure[data-metric] figcaption'),
			ths = document.querySelectorAll('#categories thead th'), cnts = document.querySelectorAll('#categories span.counts');
		[[caps, 'cap'], [ths, 'th'], [cnts, 'cnt']].forEach(function (p) {
			Array.prototype.forEach.call(p[0], function (e, i) { e.id = e.id || 'zh-' + p[1] + '-' + i; restore(keep(e.id)); });
		});
		var cc = keep('cost-cached'), cb = keep('cost-batch'), cm = ((S.cost || {}).messages || []).map(function (m, i) { return keep('cost-msg-' + i); }), ws = (S.warnings || []).map(function (w, i) { return keep('warning-' + i); });
		[cc, cb].concat(cm, ws).forEach(restore);
		if (lang !== 'zh') return;
		costZh(cc, cb);
		/* the gate's one warning (gate.c's self_judging), said again from its numbers */
		ws.forEach(function (p, i) {
			var sj = S.self_judging;
			if (p && sj && /^self-judging:/.test(String(S.warnings[i])))
				p.textContent = say('w-self', {m: sj.model, n: sj.records, of: S.records});
		});
		checksZh();
		groupsZh(caps, ths, cnts);
		if (fl) Array.prototype.forEach.call(fl.querySelectorAll('tbody tr'), function (tr, i) {
			var codes = (S.failed_why || [])[i] || [];
			Array.prototype.forEach.call(tr.querySelectorAll('td:last-child li'), function (li, k) {
				li.textContent = whyLine(li.textContent, codes[k]);
			});
		});
		if (hs) Array.prototype.forEach.call(hs.querySelectorAll('li'), function (li, i) {
			var h = (S.hints || [])[i];
			if (h && h.texts && h.texts.zh) li.textContent = h.texts.zh;
		});
		Array.prototype.forEach.call(cards, function (c) {
			var name = c.querySelector('.name'), small = c.querySelector('.small'), m = null;
			(S.metrics || []).forEach(function (x) { if (name && x.metric === name.textContent) m = x; });
			if (!m || !small) return;
			small.textContent = '';
			cardLines(m).forEach(function (t, i) {
				if (i) add(small, el('br'));
				add(small, document.createTextNode(t));
			});
		});
	}
	/* the cost table's two notes (report.c's cost_table) in Chinese, from the summary's cost */
	function costZh(cc, cb) {
		var c = S.cost || {}, b = c.batch || {}, n0 = function (x) { return String(Math.round(x || 0)); },
			n6 = function (x) { return (x || 0).toFixed(6); };
		if (cc) cc.textContent = say('cost-cached', {p: n0(c.prompt_tokens), c: n0(c.cached_tokens)});
		if (cb) cb.textContent = say('cost-batch', {n: n0(b.requests), b: n6(b.cost), l: n6(b.cost_at_list_price)});
		/* its messages (cost.c): first a line per model of no_price, then one per model of batch.no_price */
		(c.messages || []).forEach(function (m, i) {
			var p = document.getElementById('cost-msg-' + i), np = c.no_price || [], bp = b.no_price || [];
			if (!p) return;
			if (i < np.length) p.textContent = say('cost-no-price-for', {m: np[i]});
			else if (i - np.length < bp.length) p.textContent = say('cost-no-batch-price', {m: bp[i - np.length]});
		});
	}
	/* a check of the gate's ({pass, skipped, message, code, args}: gate.c's) in Chinese, as
	 * rag-serve's page words it; its message where its code has no words here */
	function checkZh(k) {
		var a = k.args || {}, pct = function (x) { return ((x || 0) * 100).toFixed(1) + '%'; };
		var mark = k.skipped ? say('st_skipped') : k.pass ? say('st_pass') : say('st_failure');
		if (!k.code || L.zh['ck_' + k.code] === undefined) return mark + '：' + str(k.message);
		return mark + '：' + say('ck_' + k.code, {
			metric: a.metric, records: a.records, category: a.category, delta: num(a.delta),
			conf: typeof a.confidence === 'number' ? (a.confidence * 100).toFixed(0) : '\u2013', lo: num(a.ci_low), hi: num(a.ci_high),
			mean: num(a.mean), op: k.pass ? '\u2265' : '<', threshold: num(a.threshold), nulls: a.nulls, applicable: a.applicable,
			rate: pct(a.rate), max: pct(a.max_error_rate), flips: a.flips, unreadable: a.unreadable, passed: a.passed, of: a.of,
			min: pct(a.min_pass_rate),
			reason: a.reason !== null && a.reason !== undefined ? a.reason : say('rc_' + (a.reason_code || 'not_applicable'))
		});
	}
	/* the Summary's checks (check_lines: the failed first, then the rest folded) in Chinese */
	function checksZh() {
		var cs = S.checks || [], bad = cs.filter(function (c) { return !c.pass && !c.skipped; });
		var rest = cs.filter(function (c) { return c.pass || c.skipped; }), ok = document.querySelector('#summary details.checks-ok ul');
		[[document.getElementById('checks'), bad], [ok, rest]].forEach(function (p) {
			if (p[0]) Array.prototype.forEach.call(p[0].querySelectorAll('li'), function (li, i) { if (p[1][i]) li.textContent = checkZh(p[1][i]); });
		});
	}
	/* the Summary's distribution captions (histogram_caption's), the groups' table headers
	 * (metric_table's) and counts (rag_report_counts', as countsZh says the head's) in Chinese */
	var TH_ZH = ['指标', '计算', '不适用', '空', '均值', '中位数', '最小值', 'p10', '分布'];
	function groupsZh(caps, ths, cnts) {
		var groups = [];
		Array.prototype.forEach.call(caps, function (c) {
			var name = c.parentNode.getAttribute('data-metric'), m = null;
			(S.metrics || []).forEach(function (x) { if (x.metric === name) m = x; });
			if (!m) return;
			c.textContent = typeof m.threshold_record === 'number' ? say('cap-rec', {m: name, t: num(m.threshold_record)})
				: typeof m.threshold_mean === 'number' ? say('cap-mean-thr', {m: name, t: num(m.threshold_mean)}) : say('cap-none', {m: name});
		});
		Array.prototype.forEach.call(ths, function (th) { var k = th.cellIndex; if (TH_ZH[k]) th.textContent = TH_ZH[k]; });
		(S.groups || []).forEach(function (by) { (by.groups || []).forEach(function (g) { groups.push(g); }); });
		Array.prototype.forEach.call(cnts, function (c, i) { if (groups[i]) c.textContent = countsZh(groups[i]); });
	}
	/* a reason of the gate's (its English, and its {code, args}: gate.c's) in the page's language */
	function whyLine(english, c) {
		var a;
		if (lang !== 'zh' || !c || !L.zh['w-' + c.code]) return english;
		a = {};
		Object.keys(c.args || {}).forEach(function (k) { a[k] = typeof c.args[k] === 'number' ? num(c.args[k]) : str(c.args[k]); });
		if (c.code === 'more') a.n = str(c.args.n);
		a.cat = c.args.category !== undefined ? say('w-cat', {category: str(c.args.category)}) : '';
		a.who = (c.args.tool ? c.args.tool + ': ' : '') + (c.args.metric ? c.args.metric + ': ' : '');
		return say('w-' + c.code, a);
	}
	function cardLines(m) {
		var n = function (x) { return typeof x === 'number' ? x : 0; }, lines = [], f = m.relevance_from || {}, from = [];
		lines.push(say('card-stats', {md: num(m.median), p10: num(m.p10), mn: num(m.min)}));
		lines.push(say('card-on', {s: n(m.scored), n: n(S.records)}) + (n(m.not_applicable) > 0 ? say('card-na', {n: m.not_applicable}) : '') +
			say('card-null', {n: n(m['null'])}));
		if (typeof m.threshold_mean === 'number') lines.push(say('thr-of', {t: num(m.threshold_mean)}));
		if (typeof m.threshold_record === 'number') lines.push(say('per-rec', {t: num(m.threshold_record)}));
		if (typeof m.pass_rate === 'number')
			lines.push(say('card-pass', {p: n(m.passed), f: n(m.failed), n: n(m.passed) + n(m.failed), r: (m.pass_rate * 100).toFixed(1)}));
		if (n(m.flips) > 0) lines.push(say('card-flips', {n: m.flips}));
		['ids', 'verdicts', 'similarity'].forEach(function (k) { if (n(f[k]) > 0) from.push(say('from-' + k, {n: f[k]})); });
		if (from.length) lines.push(say('card-from', {f: from.join('，')}));
		return lines;
	}
	function applyLang() {
		document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
		sayHead();
		Array.prototype.forEach.call(document.querySelectorAll('[data-i18n]'), function (e) {
			e.textContent = say(e.getAttribute('data-i18n'));
		});
		var sw = document.getElementById('lang-switch');
		/* the switch names the other language, in that language */
		if (sw) { sw.textContent = L[lang === 'zh' ? 'en' : 'zh'].other; sw.lang = lang === 'zh' ? 'en' : 'zh'; }
	}

	/* ------------------------------------------------------------ tabs */
	var tabs = ['summary', 'records', 'compare', 'history'], built = {}, current = 'summary';
	function show(name) {
		if (tabs.indexOf(name) < 0) name = 'summary';
		current = name;
		tabs.forEach(function (t) {
			var s = document.getElementById(t), b = document.querySelector('nav.tabs button[data-tab="' + t + '"]');
			if (s) s.classList.toggle('active', t === name);
			if (b) b.setAttribute('aria-selected', t === name ? 'true' : 'false');
		});
		if (!built[name]) {
			built[name] = true;
			if (name === 'records') buildRecords();
			else if (name === 'compare') buildCompare();
			else if (name === 'history') buildHistory();
		}
	}
	document.body.classList.add('js');
	(function () {
		var sw = document.getElementById('lang-switch');
		if (!sw) return;
		sw.addEventListener('click', function () {
			lang = lang === 'zh' ? 'en' : 'zh';
			try { localStorage.setItem('rag-report-lang', lang); } catch (e) { /* a file: page may have none */ }
			/* the URL's choice would win on reload: it follows the switch */
			if (/[?&]lang=/.test(location.search) && history.replaceState)
				history.replaceState(null, '', location.search.replace(/([?&]lang=)(en|zh)/, '$1' + lang) + location.hash);
			/* the tabs already drawn are drawn again in the new language */
			['records', 'compare', 'history'].forEach(function (t) {
				var host = document.getElementById(t === 'compare' ? 'compare-records' : t + '-app');
				if (built[t] && host) { host.textContent = ''; built[t] = false; }
			});
			applyLang();
			buildCauses();
			show(current);
		});
	})();
	Array.prototype.forEach.call(document.querySelectorAll('nav.tabs button'), function (b) {
		b.addEventListener('click', function () {
			show(b.getAttribute('data-tab'));
			if (history.replaceState) history.replaceState(null, '', '#' + b.getAttribute('data-tab'));
		});
	});

	/* ------------------------------------------------------------ a record's detail */
	function statusBadge(st) {
		if (!D.gated && st === 'pass') return el('span', 'st none', say('st-none'));
		return el('span', 'st ' + (st === 'pass' ? 'pass' : st === 'fail' ? 'fail' : 'error'),
			say(st === 'pass' ? 'st-pass' : st === 'fail' ? 'st-fail' : 'st-error'));
	}
	function textBlock(parent, title, text) {
		add(parent, el('h4', null, title));
		add(parent, el('div', 'text', text === undefined || text === null ? say('none') : text));
	}
	/* verdict lists by kind: one entry per chunk ("chunk"), or per claim */
	function verdictLists(r) {
		var chunks = [], claims = [], other = [], v = r.v || {};
		Object.keys(v).forEach(function (m) {
			var list = v[m];
			if (Array.isArray(list) && list.length && list[0] && typeof list[0] === 'object' && ('chunk' in list[0] || 'chunk_is_context' in list[0])) chunks.push([m, list]);
			else if (Array.isArray(list)) claims.push([m, list]);
			else if (list && typeof list === 'object') other.push([m, list]);
		});
		return {chunks: chunks, claims: claims, other: other};
	}
	function verdictMark(v) {
		return v === true ? el('span', 'ok', say('v-yes')) : v === false ? el('span', 'bad', say('v-no')) : el('span', 'na', '\u2013');
	}
	var relevanceFrom = {ids: 'relevant ids', verdicts: 'the judge\'s chunk verdicts', similarity: 'similarity to reference contexts'};
	function detail(r) {
		var d = el('div', 'detail'), vl = verdictLists(r), p, ul, ol, t, tb;
		p = add(d, el('p'));
		add(p, statusBadge(r.st));
		add(p, document.createTextNode(' ' + str(r.id)));
		if (r.at) add(p, el('span', 'small', '  (' + r.at + ')')).className = 'small where';
		if (r.src) add(d, el('p', 'small source', say('src', {s: r.src})));
		if (r.why && r.why.length) {
			add(d, el('h4', null, r.st === 'pass' ? say('notes') : say('why-failed')));
			ul = add(d, el('ul', 'why'));
			r.why.forEach(function (w, k) { add(ul, el('li', 'bad', whyLine(w, r.whyc && r.whyc[k]))); });
		}
		t = add(d, el('table', 'scores'));
		tb = add(t, el('tbody'));
		Object.keys(r.sc || {}).forEach(function (m) {
			var tr = add(tb, el('tr')), x = r.sc[m], th = thr[m] || {}, note = '';
			add(tr, el('td', null, m));
			if (typeof x !== 'number' && r.na && r.na[m]) note = say('na-why', {w: r.na[m]});
			add(tr, el('td', 'n', typeof x === 'number' ? num(x) : note || say('null')));
			add(tr, el('td', 'small', typeof th.rec === 'number' ? say('per-rec', {t: num(th.rec)}) : ''));
			/* rag-ap's source of relevance: the user's ids, the judge's verdicts, or similarity */
			add(tr, el('td', 'small from', r.rf && typeof r.rf[m] === 'string' ? 'from ' +
				(Object.prototype.hasOwnProperty.call(relevanceFrom, r.rf[m]) ? relevanceFrom[r.rf[m]] : r.rf[m]) : ''));
		});
		textBlock(d, say('question'), r.q);
		textBlock(d, say('answer'), r.a);
		textBlock(d, say('reference'), r.ref);
		add(d, el('h4', null, say('contexts')));
		if (!r.ctx || !r.ctx.length) add(d, el('p', 'na', say('none')));
		else {
			ol = add(d, el('ol', 'contexts'));
			r.ctx.forEach(function (c, i) {
				var li = add(ol, el('li')), vs;
				add(li, el('div', 'text', c));
				vl.chunks.forEach(function (e) {
					var cv = e[1][i];
					if (!cv) return;
					vs = add(li, el('div', 'small chunk-verdict'));
					add(vs, document.createTextNode(e[0] + ': '));
					add(vs, verdictMark(cv.verdict));
					if (typeof cv.score === 'number') add(vs, document.createTextNode(' ' + num(cv.score)));
					if (cv.reason) add(vs, document.createTextNode(' \u2014 ' + cv.reason));
				});
			});
		}
		vl.claims.forEach(function (e) {
			var tbl, body, hr;
			/* the offline judge grades its verdicts: a score column where any has one */
			var scored = e[1].some(function (c) { return c && typeof c.score === 'number'; });
			add(d, el('h4', null, say('claims-of', {m: e[0]})));
			tbl = add(d, el('table', 'claims'));
			hr = add(add(tbl, el('thead')), el('tr'));
			(scored ? ['claim', 'verdict', 'score', 'reason'] : ['claim', 'verdict', 'reason'])
				.forEach(function (h) { add(hr, el('th', null, say('h-' + h))); });
			body = add(tbl, el('tbody'));
			e[1].forEach(function (c) {
				var tr = add(body, el('tr')), what = c && typeof c === 'object' ? (c.claim || c.statement || c.text || '') : String(c);
				if (c && c.source) what += ' (' + c.source + (c['class'] ? ', ' + c['class'] : '') + ')';
				add(tr, el('td', 'text', what));
				add(add(tr, el('td')), verdictMark(c && c.verdict));
				if (scored) add(tr, el('td', 'n', num(c && c.score)));
				add(tr, el('td', 'text', c && c.reason ? c.reason : ''));
			});
		});
		vl.other.forEach(function (e) {
			var o = e[1];
			add(d, el('h4', null, say('verdict-of', {m: e[0]})));
			add(d, el('p', 'text', (o.score !== undefined ? 'score ' + o.score + (o.scale ? ' (' + o.scale + ')' : '') + '. ' : '') +
				(o.pass !== undefined ? (o.pass ? 'pass. ' : 'fail. ') : '') + str(o.reason)));
		});
		if (r.err && r.err.length) {
			add(d, el('h4', null, say('errors2')));
			ul = add(d, el('ul', 'errors'));
			/* one line per message: the stages that repeat a cause are named on its line */
			var byMsg = {}, msgs = [];
			r.err.forEach(function (e) {
				var k = str(e.message) + (e.at ? ' (at ' + e.at + ')' : ''), who = [e.tool, e.metric].filter(Boolean).join(': ');
				if (!byMsg[k]) { byMsg[k] = []; msgs.push(k); }
				if (who && byMsg[k].indexOf(who) < 0) byMsg[k].push(who);
			});
			msgs.forEach(function (k) {
				add(ul, el('li', 'bad', (byMsg[k].length ? byMsg[k].join(', ') + ': ' : '') + k));
			});
		}
		return d;
	}

	/* ------------------------------------------------------------ the failing records by cause */
	/* One line per cause with its count, the most first, so the first screen says what to fix
	 * first. The grouping is rag-report's (lib/causes.c, the one rag-serve's opened run shows
	 * too), in D.causes: [{kind, metric?, threshold?, tool?, text?, cause (English), count,
	 * records: [{seq, id, detail}] (10 at most, the farthest below the threshold first)}]. */
	function causeLabel(c) {
		return c.kind === 'below' ? ['below', {m: c.metric, t: num(c.threshold)}] : c.kind === 'null' ? ['isnull', {m: c.metric}]
			: c.kind === 'outage' ? [c.who === 'service' ? 'outage-service' : 'outage-judge', {}] : c.kind === 'miss' ? ['miss', {}]
			: c.kind === 'noanswer' ? ['noanswer', {t: c.tool}] : ['error', {t: c.text}];
	}
	function buildCauses() {
		var host = document.getElementById('causes'), causes = D.causes || [], ul;
		if (!host || !D.gated) return;
		host.textContent = '';
		add(host, el('h3', null, say('causes')));
		if (!causes.length) { add(host, el('p', null, say('no-causes'))); return; }
		add(host, el('p', 'small causes-note', say('causes-note')));
		ul = add(host, el('ul', 'causes'));
		causes.forEach(function (g, gi) {
			var n = g.count, label = causeLabel(g), li = add(ul, el('li', 'cause')), det = add(li, el('details')), sm, ol;
			/* the cause in English whatever the page's language: a stable handle for tools and tests */
			li.setAttribute('data-cause', g.cause);
			li.setAttribute('data-count', String(n));
			if (gi === 0) det.open = true;
			sm = add(det, el('summary'));
			add(sm, el('span', 'label bad', say(label[0], label[1])));
			add(sm, document.createTextNode(': '));
			add(sm, el('span', 'count', n === 1 ? say('nrec1') : say('nrec', {n: n})));
			ol = add(det, el('ol', 'cause-records'));
			g.records.forEach(function (r) {
				var rli = add(ol, el('li'));
				add(rli, el('span', 'rid', str(r.id)));
				if (r.detail) add(rli, el('span', 'small', ' ' + r.detail));
			});
			if (n > g.records.length) add(det, el('p', 'small', say('more', {n: n - g.records.length})));
		});
	}

	/* ------------------------------------------------------------ a paged, sortable list */
	/* cols: [{key, label, value(i), cell(i, td)}]; rows(): the indices to show; opens(i): the
	 * detail element of row i. */
	function pagedTable(host, cols, rowsFn, opens, rowClass, idPrefix) {
		var table = add(host, el('table', 'list')), head = add(add(table, el('thead')), el('tr')), body = add(table, el('tbody'));
		var pager = add(host, el('div', 'pager controls')), prev = add(pager, el('button', null, say('prev')));
		var info = add(pager, el('span', 'pageinfo')), next = add(pager, el('button', null, say('next')));
		var state = {page: 0, sort: null, dir: 1, rows: []};
		prev.type = next.type = 'button';
		prev.id = idPrefix + '-prev';
		next.id = idPrefix + '-next';
		info.id = idPrefix + '-pageinfo';
		table.id = idPrefix + '-table';
		cols.forEach(function (c, ci) {
			var th = add(head, el('th', null, c.label));
			th.setAttribute('data-col', c.key);
			th.addEventListener('click', function () {
				if (state.sort === ci) state.dir = -state.dir;
				else { state.sort = ci; state.dir = c.desc ? -1 : 1; }
				Array.prototype.forEach.call(head.children, function (h) { h.removeAttribute('aria-sort'); });
				th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending');
				refresh();
			});
		});
		function sortRows() {
			if (state.sort === null) return;
			var c = cols[state.sort], dir = state.dir, keys = {};
			state.rows.forEach(function (i) { keys[i] = c.value(i); });
			state.rows.sort(function (a, b) {
				var x = keys[a], y = keys[b];
				/* nulls last whichever the direction */
				if (x === null || x === undefined) return y === null || y === undefined ? a - b : 1;
				if (y === null || y === undefined) return -1;
				if (x < y) return -dir;
				if (x > y) return dir;
				return a - b;
			});
		}
		function draw() {
			var n = state.rows.length, pages = Math.max(1, Math.ceil(n / PAGE)), from, to, k, frag = document.createDocumentFragment();
			if (state.page >= pages) state.page = pages - 1;
			from = state.page * PAGE;
			to = Math.min(n, from + PAGE);
			for (k = from; k < to; k++) (function (i) {
				var tr = el('tr', 'row ' + (rowClass ? rowClass(i) : ''));
				tr.setAttribute('data-i', String(i));
				cols.forEach(function (c) {
					var td = add(tr, el('td', [c.num ? 'n' : '', c.cls || ''].join(' ').trim() || null));
					td.setAttribute('data-label', c.label);   /* a phone's stacked row names its cells */
					if (c.cell) c.cell(i, td);
					else td.textContent = str(c.value(i));
				});
				tr.tabIndex = 0;   /* a row opens from the keyboard too */
				tr.addEventListener('keydown', function (ev) { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); tr.click(); } });
				tr.addEventListener('click', function () {
					var nx = tr.nextSibling, dt, td;
					if (nx && nx.classList && nx.classList.contains('detail')) { body.removeChild(nx); return; }
					dt = el('tr', 'detail');
					td = add(dt, el('td'));
					td.colSpan = cols.length;
					add(td, opens(i));
					body.insertBefore(dt, tr.nextSibling);
				});
				frag.appendChild(tr);
			})(state.rows[k]);
			body.textContent = '';
			body.appendChild(frag);
			info.textContent = n ? say('page-info', {a: from + 1, b: to, n: n, p: state.page + 1, ps: pages}) : say('no-rows');
			prev.disabled = state.page === 0;
			next.disabled = state.page >= pages - 1;
		}
		function refresh() {
			state.rows = rowsFn();
			sortRows();
			state.page = 0;
			draw();
		}
		prev.addEventListener('click', function () { state.page--; draw(); });
		next.addEventListener('click', function () { state.page++; draw(); });
		return {refresh: refresh, state: state};
	}

	/* ------------------------------------------------------------ Records */
	function buildRecords() {
		var host = document.getElementById('records-app'), ctl = add(host, el('div', 'controls'));
		var cats = {}, hay = null, timer = null, count, list, q, fcat, fst, ferr, fm, fop, fv;
		R.forEach(function (r) { if (r.cat !== undefined) cats[r.cat] = 1; });
		function labelled(text, input) {
			var l = add(ctl, el('label', null, text + ' '));
			add(l, input);
			return input;
		}
		function select(id, options) {
			var s = el('select');
			s.id = id;
			options.forEach(function (o) { var op = add(s, el('option', null, o[1])); op.value = o[0]; });
			return s;
		}
		q = labelled(say('search'), el('input'));
		q.id = 'f-search';
		q.type = 'search';
		q.placeholder = say('ph-search');
		fcat = labelled(say('category'), select('f-category', [['', say('all')]].concat(Object.keys(cats).sort().map(function (c) { return [c, c]; }))));
		fst = labelled(say('result'), select('f-status', D.gated ? [['', say('all')], ['pass', say('f-passed')], ['fail', say('f-failed')],
			['error', say('f-errored')]] : [['', say('f-none-judged')]]));
		ferr = labelled(say('errors'), select('f-errors', [['', say('all')], ['with', say('f-with')], ['without', say('f-without')]]));
		fm = labelled(say('metric'), select('f-metric', [['', say('f-any')]].concat(metrics.map(function (m) { return [m, m]; }))));
		fop = select('f-op', [['lt', say('op-lt')], ['ge', say('op-ge')], ['null', say('op-null')]]);
		add(ctl, fop);
		fv = el('input');
		fv.id = 'f-value';
		fv.type = 'number';
		fv.step = '0.05';
		fv.min = '0';
		fv.max = '1';
		fv.value = '0.5';
		add(ctl, fv);
		count = add(host, el('p', 'small'));
		count.id = 'records-count';
		function haystack() {
			if (!hay) hay = R.map(function (r) { return [r.id, r.q, r.a, r.ref, r.cat].map(str).join('\n').toLowerCase(); });
			return hay;
		}
		function rows() {
			var out = [], needle = q.value.trim().toLowerCase(), cat = fcat.value, st = fst.value, er = ferr.value;
			var m = fm.value, op = fop.value, v = parseFloat(fv.value), h = needle ? haystack() : null, i, r, x;
			for (i = 0; i < R.length; i++) {
				r = R[i];
				if (cat && str(r.cat) !== cat) continue;
				if (st === 'pass' && r.st !== 'pass') continue;
				if (st === 'fail' && r.st === 'pass') continue;
				if (st === 'error' && r.st !== 'error') continue;
				if (er === 'with' && !(r.err && r.err.length)) continue;
				if (er === 'without' && r.err && r.err.length) continue;
				if (m) {
					x = r.sc ? r.sc[m] : undefined;
					if (op === 'null') { if (typeof x === 'number') continue; }
					else if (typeof x !== 'number' || isNaN(v)) continue;
					else if (op === 'lt' ? !(x < v) : !(x >= v)) continue;
				}
				if (h && h[i].indexOf(needle) < 0) continue;
				out.push(i);
			}
			count.textContent = say('n-of-records', {a: out.length, n: R.length});
			return out;
		}
		var cols = [
			{key: 'n', label: '#', num: true, value: function (i) { return i + 1; }},
			{key: 'id', label: say('col-id'), cls: 'id', value: function (i) { return str(R[i].id); }},
			{key: 'category', label: say('col-category'), value: function (i) { return R[i].cat === undefined ? null : str(R[i].cat); }},
			{key: 'status', label: say('col-result'), value: function (i) { return R[i].st === 'pass' ? 2 : R[i].st === 'fail' ? 1 : 0; },
				cell: function (i, td) { add(td, statusBadge(R[i].st)); if (R[i].why && R[i].why.length && R[i].st !== 'pass') add(td, el('div', 'small why', whyLine(R[i].why[0], R[i].whyc && R[i].whyc[0]))); }},
			{key: 'question', label: say('col-question'), cls: 'q', value: function (i) { return str(R[i].q).slice(0, 120); }}
		].concat(metrics.map(function (m) {
			return {key: 'm:' + m, label: m, num: true, value: function (i) { var x = R[i].sc ? R[i].sc[m] : undefined; return typeof x === 'number' ? x : null; },
				cell: function (i, td) { var x = R[i].sc ? R[i].sc[m] : undefined, th = thr[m] || {};
					td.textContent = typeof x === 'number' ? num(x) : R[i].na && R[i].na[m] ? say('n-a') : say('null');
					if (typeof x === 'number' && typeof th.rec === 'number' && x < th.rec - 1e-9) td.className = 'n bad'; }};
		})).concat([{key: 'errors', label: say('col-errors'), num: true, value: function (i) { return R[i].err ? R[i].err.length : 0; }}]);
		list = pagedTable(host, cols, rows, function (i) { return detail(R[i]); },
			function (i) { return R[i].st === 'pass' ? '' : 'failing'; }, 'records');
		function later() { clearTimeout(timer); timer = setTimeout(list.refresh, 120); }
		q.addEventListener('input', later);
		[fcat, fst, ferr, fm, fop].forEach(function (s) { s.addEventListener('change', list.refresh); });
		fv.addEventListener('input', later);
		list.refresh();
	}

	/* ------------------------------------------------------------ Compare */
	function buildCompare() {
		var host = document.getElementById('compare-records'), B = D.base, ctl, fsel, list, idx = [], kind = [], count;
		if (!host || !B) return;
		R.forEach(function (r, i) {
			var ch = r.ch || [], reg = 0, imp = 0, worst = 0, best = 0;
			if (r.id === undefined || !B.records || !Object.prototype.hasOwnProperty.call(B.records, r.id)) return;
			ch.forEach(function (c) {
				/* a lost score sorts first: the largest drop there is */
				if (c.change === 'lost') worst = -Infinity;
				else if (c.change === 'regressed' && c.delta < worst) worst = c.delta;
				else if (c.change === 'improved' && c.delta > best) best = c.delta;
			});
			reg = r.cc === 'regressed';
			imp = r.cc === 'improved';
			idx.push(i);
			/* the gate's own classes (the library's, cc): regressed first (largest drop first), then improved */
			kind[i] = reg ? {k: 0, key: worst, label: 'regressed'} : imp ? {k: 1, key: -best, label: 'improved'} : {k: 2, key: 0, label: 'unchanged'};
			kind[i].word = say(kind[i].label);
		});
		idx.sort(function (a, b) { return kind[a].k - kind[b].k || kind[a].key - kind[b].key || a - b; });
		add(host, el('h3', null, say('by-id')));
		ctl = add(host, el('div', 'controls'));
		fsel = el('select');
		fsel.id = 'c-filter';
		[['', say('all')], ['regressed', say('regressed')], ['improved', say('improved')], ['unchanged', say('unchanged')]].forEach(function (o) {
			var op = add(fsel, el('option', null, o[1])); op.value = o[0];
		});
		add(add(ctl, el('label', null, say('show') + ' ')), fsel);
		count = add(host, el('p', 'small'));
		count.id = 'compare-count';
		function delta(i, m) {
			var c = (R[i].ch || []).filter(function (x) { return x.metric === m; })[0];
			return c ? c.delta : null;
		}
		var cols = [
			{key: 'id', label: say('col-id'), value: function (i) { return str(R[i].id); }},
			{key: 'change', label: say('col-change'), value: function (i) { return kind[i].k; },
				cell: function (i, td) { td.textContent = kind[i].word; td.setAttribute('data-change', kind[i].label); td.className = kind[i].k === 0 ? 'bad' : kind[i].k === 1 ? 'ok' : 'na'; }}
		].concat(metrics.map(function (m) {
			return {key: 'd:' + m, label: say('delta-m', {m: m}), num: true, value: function (i) { return delta(i, m); },
				cell: function (i, td) { var x = delta(i, m); td.textContent = x === null ? '\u2013' : signed(x); }};
		}));
		function rows() {
			var f = fsel.value, out = idx.filter(function (i) { return !f || kind[i].label === f; });
			count.textContent = say('n-matched', {a: out.length, n: idx.length});
			return out;
		}
		function side(i) {
			var r = R[i], b = B.records[r.id] || {}, d = el('div', 'detail'), grid = add(d, el('div', 'side')), l, rr, ul;
			l = add(grid, el('div', 'baseline-side'));
			rr = add(grid, el('div', 'current-side'));
			add(l, el('h4', null, say('base-side', {n: str(B.name)})));
			add(l, el('div', 'text answer', b.a === undefined || b.a === null ? say('no-answer') : b.a));
			add(rr, el('h4', null, say('this-side', {n: str(D.run)})));
			add(rr, el('div', 'text answer', r.a === undefined || r.a === null ? say('no-answer') : r.a));
			ul = add(d, el('ul', 'changes'));
			(r.ch || []).forEach(function (c) {
				add(ul, el('li', c.change === 'regressed' || c.change === 'lost' ? 'bad' : c.change === 'improved' || c.change === 'gained' ? 'ok' : null,
					c.metric + ': ' + num(c.baseline) + ' \u2192 ' + num(c.current) + ' (' + signed(c.delta) + ', ' + say(c.change === 'none' ? 'unchanged' : c.change) + ')'));
			});
			add(d, el('p', 'small', say('q-is', {q: str(r.q)})));
			return d;
		}
		list = pagedTable(host, cols, rows, side, function (i) { return kind[i].k === 0 ? 'failing' : ''; }, 'compare');
		fsel.addEventListener('change', list.refresh);
		list.refresh();
	}

	/* ------------------------------------------------------------ History */
	function safeLink(u) {
		/* a link that cannot run script: resolved as the browser would (which drops tabs, newlines
		 * and leading spaces, so "java\tscript:" is javascript:), then http, https or file only */
		var url;
		if (typeof u !== 'string' || !u) return null;
		try { url = new URL(u, document.baseURI); } catch (e) { return null; }
		return /^(https?|file):$/.test(url.protocol) ? url.href : null;
	}
	function buildHistory() {
		var host = document.getElementById('history-app'), H = D.history || [], names = {}, panel, dated, t0, t1;
		if (!H.length) { add(host, el('p', null, say('no-history'))); return; }
		add(host, el('p', 'small', H.length === 1 ? say('run-1') : say('runs-oldest', {n: H.length})));
		H.forEach(function (h) { Object.keys(h.means || {}).forEach(function (m) { names[m] = 1; }); });
		dated = H.every(function (h) { return typeof h.started === 'string' && !isNaN(Date.parse(h.started)); });
		if (dated) {
			t0 = Date.parse(H[0].started);
			t1 = Date.parse(H[H.length - 1].started);
			H.forEach(function (h) { var t = Date.parse(h.started); if (t < t0) t0 = t; if (t > t1) t1 = t; });
		}
		function label(h) {
			return h.label ? str(h.label) : h.commit ? str(h.commit).slice(0, 8) : str(h.run).replace(/^.*\//, '');
		}
		function open(i) {
			var h = H[i], dl, link, href;
			panel.textContent = '';
			add(panel, el('h4', null, say('run-title', {r: str(h.run)}) + (h.current ? say('this-report') : '')));
			dl = add(panel, el('table', 'run'));
			[['h-started', h.started], ['h-label', h.label], ['h-commit', h.commit], ['h-testset', h.testset], ['h-records', h.n],
				['h-passed', h.passed === true ? say('yes') : h.passed === false ? say('no') : '\u2013'], ['h-file', h.file]].forEach(function (kv) {
				var tr = add(dl, el('tr'));
				add(tr, el('th', null, say(kv[0])));
				add(tr, el('td', null, kv[1] === undefined || kv[1] === null ? '\u2013' : kv[1]));
			});
			Object.keys(h.means || {}).sort().forEach(function (m) {
				var tr = add(dl, el('tr'));
				add(tr, el('th', null, m));
				add(tr, el('td', 'n', num(h.means[m])));
			});
			href = safeLink(h.report);
			if (h.current) {
				link = add(panel, el('button', null, say('show-summary')));
				link.type = 'button';
				link.addEventListener('click', function () { show('summary'); });
			} else if (href) {
				link = add(add(panel, el('p')), el('a', null, say('open-report')));
				link.href = href;
			}
		}
		/* one run is a point, not a trend: a note, and its means in the table */
		if (H.length < 2) add(host, el('p', 'one-run', say('one-run')));
		else Object.keys(names).sort().forEach(function (m) {
			var W = 560, Hh = 200, pad = 36, fig = add(host, el('figure')), s = svg('svg', {width: W, height: Hh, viewBox: '0 0 ' + W + ' ' + Hh, role: 'img'});
			var pts = [], i, th = thr[m] || {}, lo = Infinity, hi = -Infinity, span, tick, step, lw = 0;
			/* the y axis spans the data (and the threshold), so a drop of 0.05 is seen, not
			 * flattened on a fixed 0-1 axis; ticks at a round step */
			H.forEach(function (h) { var v = h.means ? h.means[m] : undefined; if (typeof v === 'number') { if (v < lo) lo = v; if (v > hi) hi = v; } });
			if (typeof th.mean === 'number') { lo = Math.min(lo, th.mean); hi = Math.max(hi, th.mean); }
			if (!isFinite(lo)) { lo = 0; hi = 1; }
			span = hi - lo;
			tick = span > 0.5 ? 0.25 : span > 0.2 ? 0.1 : span > 0.1 ? 0.05 : span > 0.04 ? 0.02 : 0.01;
			var dlo0 = lo, dhi0 = hi;
			lo = Math.floor((lo - tick / 2) / tick) * tick;
			hi = Math.ceil((hi + tick / 2) / tick) * tick;
			if (dlo0 >= 0 && lo < 0) lo = 0;
			if (dhi0 <= 1 && hi > 1) hi = 1;
			function yAt(v) { return pad + (Hh - 2 * pad) * (1 - (v - lo) / (hi - lo)); }
			fig.className = 'history-chart';
			fig.setAttribute('data-metric', m);
			add(s, svg('title', {})).textContent = say('cap-mean', {m: m});
			for (i = 0; lo + i * tick <= hi + 1e-9; i++) {
				var y = yAt(lo + i * tick);
				add(s, svg('line', {x1: pad, y1: y, x2: W - 10, y2: y, stroke: '#eaeef2'}));
				add(s, svg('text', {x: pad - 4, y: y + 3, 'text-anchor': 'end', 'class': 'ytick'})).textContent = (lo + i * tick).toFixed(2);
			}
			if (typeof th.mean === 'number') {
				var ty = yAt(th.mean);
				var tl = add(s, svg('line', {x1: pad, y1: ty, x2: W - 10, y2: ty, stroke: '#cf222e', 'stroke-dasharray': '4 2', 'class': 'thr-mean'}));
				add(tl, svg('title', {})).textContent = say('thr-of', {t: num(th.mean)});
			}
			function xAt(k) {
				if (dated && t1 > t0) return pad + (W - pad - 24) * (Date.parse(H[k].started) - t0) / (t1 - t0);
				return pad + (W - pad - 24) * k / (H.length - 1);
			}
			/* labels far enough apart not to overlap: about 6 px a character at 10 px, a date 10 */
			H.forEach(function (h) { lw = Math.max(lw, Math.min(12, label(h).length), typeof h.started === 'string' ? 10 : 0); });
			var lastX = -Infinity, gap = lw * 6 + 8;
			H.forEach(function (h, k) {
				var x = xAt(k), v = h.means ? h.means[m] : undefined, c, tx, last = k === H.length - 1;
				if (x - lastX >= gap && (last || xAt(H.length - 1) - x >= gap)) {
					lastX = x;
					tx = add(s, svg('text', {x: x, y: Hh - 18, 'text-anchor': 'middle', 'class': 'xlabel'}));
					tx.textContent = label(h).slice(0, 12);
					if (typeof h.started === 'string')
						add(s, svg('text', {x: x, y: Hh - 6, 'text-anchor': 'middle', 'class': 'xdate'})).textContent = h.started.slice(0, 10);
				}
				if (typeof v !== 'number') return;
				var y = yAt(v);
				pts.push(x.toFixed(1) + ',' + y.toFixed(1));
				c = svg('circle', {cx: x.toFixed(1), cy: y.toFixed(1), r: h.current ? 5.5 : 4, fill: h.current ? '#1f2328' : '#0969da', 'class': 'point', 'data-run': k});
				add(c, svg('title', {})).textContent = label(h) + (h.started ? ' ' + h.started : '') + ': ' + num(v);
				c.addEventListener('click', function () { open(k); });
				add(s, c);
			});
			if (pts.length > 1) s.insertBefore(svg('polyline', {points: pts.join(' '), fill: 'none', stroke: '#0969da', 'stroke-width': 2}), s.querySelector('circle'));
			add(fig, s);
			add(fig, el('figcaption', null, say('cap-mean', {m: m}) + (dated ? say('cap-date') : '') + (typeof th.mean === 'number' ? say('cap-dashed') : '')));
		});
		panel = add(host, el('div'));
		panel.id = 'history-run';
		add(panel, el('p', 'small', say('click-point')));
		var t = add(host, el('table', 'list')), hr = add(add(t, el('thead')), el('tr')), body = add(t, el('tbody')), ms = Object.keys(names).sort();
		t.id = 'history-table';
		var heads = ['started', 'run', 'label', 'commit', 'records', 'passed'];
		heads.forEach(function (h) { add(hr, el('th', null, say('h-' + h))); });
		ms.forEach(function (h) { add(hr, el('th', null, h)); });
		H.forEach(function (h, k) {
			var tr = add(body, el('tr', 'row' + (h.current ? ' current' : '')));
			[h.started, h.run, h.label, h.commit ? str(h.commit).slice(0, 12) : null, h.n,
				h.passed === true ? say('yes') : h.passed === false ? say('no') : null].forEach(function (v, c) {
				add(tr, el('td', null, v === undefined || v === null ? '\u2013' : v)).setAttribute('data-label', say('h-' + heads[c]));
			});
			ms.forEach(function (m) { add(tr, el('td', 'n', num(h.means ? h.means[m] : undefined))).setAttribute('data-label', m); });
			tr.addEventListener('click', function () { open(k); });
		});
	}

	applyLang();
	buildCauses();
	show((location.hash || '').slice(1));
	document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
	document.body.setAttribute('data-ready', '1');
});
