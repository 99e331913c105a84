/* serve.js - rag-serve's page: History (the runs, filtered and paged) and a run (its summary and
 * its records, paged from the store), in English and Chinese. Every text of the data goes in
 * through textContent, never as HTML. */
"use strict";
(function () {
	var T = {
		en: {
			title: "ragpipe runs", history: "History", run: "Run", label: "Label", commit: "Commit",
			since: "Since", until: "Until", filter: "Filter", prev: "Previous", next: "Next",
			c_run: "Run", c_started: "Started", c_label: "Label", c_testset: "Test set", c_n: "Records",
			c_gate: "Gate", c_means: "Means", c_metric: "Metric", c_mean: "Mean", c_id: "Id",
			c_category: "Category", c_question: "Question", c_answer: "Answer", c_scores: "Scores",
			c_passed: "Passed", means: "Means", records: "Records", pass: "pass", fail: "fail",
			runs_of: "{a}–{b} of {n} runs", recs_of: "records {a}–{b} of {n}", none: "no runs",
			s_started: "Started", s_ended: "Ended", s_commit: "Commit", s_testset: "Test set",
			s_n: "Records", s_err: "With errors", s_gate: "Gate", s_label: "Label", s_system: "System",
			run_title: "Run {id}", other: "中文", error: "Error: ", no_such_id: "no record with the id {id} in this run",
			reviewer: "Reviewer", metric: "Metric to review", export: "Export labels (CSV)", c_review: "Review",
			right: "right", wrong: "wrong", score: "score", comment: "comment", save: "save",
			saved: "saved", need_who: "give the reviewer's name first",
			checks: "Checks", causes: "What to fix first", no_causes: "No record failed.", ck_fail: "FAIL", ck_ok: "ok",
			k_below: "{m} below {t}", k_null: "{m}: no score", k_noanswer: "no answer ({t} failed)", k_error: "error: {t}",
			k_outage_judge: "the judge failed", k_outage_service: "the RAG service failed",
			k_miss: "retrieval missed: no relevant document retrieved",
			nrec: "{n} records", nrec1: "1 record", more: "and {n} more",
			ck_old: "This run was stored before the store kept verdicts: its run directory's gate.json has it.",
			v_exit: "exit status {s}: {r}", v_none: "no decision", s_exit: "Exit status", s_rate: "Pass rate",
			rate_of: "{p} ({a} of {b} records without errors or nulls)",
			exit_n: "exit {s}",
			f_failed: "Failed only", f_cause: "Cause", f_any: "any", f_metric: "Metric below", f_below: "below",
			f_text: "Text", f_clear: "Clear", f_all: "all {n} records of this cause", f_showing: " (filtered)",
			r_back: "← Run {id}", r_title: "Record {seq}: {id}", r_title_noid: "Record {seq}", r_error: "ERROR",
			r_why: "Why it failed", r_scores: "Scores", r_score: "Score", r_threshold: "Threshold", r_result: "Result",
			r_thr_rec: "≥ {t} per record", r_thr_mean: "run mean ≥ {t}", r_na: "not applicable: {r}",
			r_old: "This run was stored before the store kept each record's verdict: thresholds are not shown.",
			question: "Question", answer: "Answer", reference: "Reference", contexts: "Contexts", none_text: "(none)",
			r_claims: "Claims: {m}", r_claim: "Claim", r_verdict: "Verdict", r_reason: "Reason", r_other: "Verdict: {m}",
			r_errors: "Errors", yes: "yes", no: "no", r_marks: "Review marks", r_nomarks: "no marks yet",
			st_pass: "pass", st_failure: "fail", st_error: "no score", st_skipped: "skipped"
		},
		zh: {
			title: "ragpipe 运行记录", history: "历史", run: "运行", label: "标签", commit: "提交",
			since: "起始", until: "截止", filter: "筛选", prev: "上一页", next: "下一页",
			c_run: "运行", c_started: "开始时间", c_label: "标签", c_testset: "测试集", c_n: "记录数",
			c_gate: "门禁", c_means: "均值", c_metric: "指标", c_mean: "均值", c_id: "编号",
			c_category: "类别", c_question: "问题", c_answer: "回答", c_scores: "分数",
			c_passed: "通过", means: "均值", records: "记录", pass: "通过", fail: "未通过",
			runs_of: "第 {a}–{b} 条，共 {n} 次运行", recs_of: "第 {a}–{b} 条记录，共 {n} 条", none: "没有运行",
			s_started: "开始", s_ended: "结束", s_commit: "提交", s_testset: "测试集",
			s_n: "记录数", s_err: "出错记录", s_gate: "门禁", s_label: "标签", s_system: "系统设置",
			run_title: "运行 {id}", other: "English", error: "错误：", no_such_id: "此运行中没有编号为 {id} 的记录",
			reviewer: "审核人", metric: "审核指标", export: "导出标注 (CSV)", c_review: "审核",
			right: "正确", wrong: "错误", score: "分数", comment: "备注", save: "保存",
			saved: "已保存", need_who: "请先填写审核人",
			checks: "检查项", causes: "先修复什么", no_causes: "没有未通过的记录。", ck_fail: "未通过", ck_ok: "通过",
			k_below: "{m} 低于 {t}", k_null: "{m}：没有分数", k_noanswer: "没有回答（{t} 失败）", k_error: "错误：{t}",
			w_below_record: "{metric} {score} 低于单条阈值 {threshold}{cat}", w_cat: "（类别“{category}”的阈值）",
			w_no_pass_verdict: "{metric} 没有通过与否的判定（verdicts.{metric}）", w_verdict_fail: "{metric}：工具判定为未通过",
			w_flips: "{metric}：重复评测的结果跨越阈值翻转（--fail-on-flip）", w_missing: "{metric} 缺失", w_null: "{metric} 为空",
			w_not_number: "{metric} 不是数值",
			k_outage_judge: "评审模型调用失败", k_outage_service: "RAG 服务调用失败",
			k_miss: "检索未命中：没有找回相关文档",
			nrec: "{n} 条记录", nrec1: "1 条记录", more: "还有 {n} 条",
			ck_old: "此运行在存储开始保存结论之前存入：结论见其运行目录的 gate.json。",
			v_exit: "退出状态 {s}：{r}", v_none: "无结论", s_exit: "退出状态", s_rate: "通过率",
			rate_of: "{p}（{b} 条无错误或空值的记录中 {a} 条通过）",
			exit_n: "退出状态 {s}",
			f_failed: "只看未通过", f_cause: "原因", f_any: "全部", f_metric: "指标低于", f_below: "低于",
			f_text: "文本", f_clear: "清除", f_all: "此原因的全部 {n} 条记录", f_showing: "（已筛选）",
			r_back: "← 运行 {id}", r_title: "记录 {seq}：{id}", r_title_noid: "记录 {seq}", r_error: "出错",
			r_why: "未通过原因", r_scores: "分数", r_score: "分数", r_threshold: "阈值", r_result: "结果",
			r_thr_rec: "每条记录 ≥ {t}", r_thr_mean: "运行均值 ≥ {t}", r_na: "不适用：{r}",
			r_old: "此运行在存储开始保存每条记录的结论之前存入：不显示阈值。",
			question: "问题", answer: "回答", reference: "参考答案", contexts: "检索上下文", none_text: "（无）",
			r_claims: "陈述：{m}", r_claim: "陈述", r_verdict: "结论", r_reason: "理由", r_other: "结论：{m}",
			r_errors: "错误", yes: "是", no: "否", r_marks: "审核标注", r_nomarks: "尚无标注",
			st_pass: "通过", st_failure: "未通过", st_error: "无分数", st_skipped: "跳过",
			rs_gate_passed: "门禁通过：{with} 条无错误或空值的记录中 {passed} 条通过（{rate}）",
			rs_gate_failed: "门禁未通过：{check}", rs_a_check: "有检查项未通过",
			rs_no_threshold: "未配置阈值：仅汇总，无结论",
			rs_outage: "{n} 条记录中 {u} 条无法评分（{who}；错误见 records.jsonl）：{why}",
			rw_remote: "评审模型或 RAG 服务调用失败", rw_input: "因其输入", rw_mixed: "{r} 条因评审模型或服务失败，{i} 条因其输入",
			rs_zero: "gate.max_error_rate 为 0",
			rs_half: "超过运行的一半（无论 gate.max_error_rate 为何）",
			rs_capped: "已达到花费上限（llm.max_cost），其中 {c} 条因此未评分",
			rs_budget: "超过 gate.max_error_rate（{max}）",
			rs_within: "；{n} 条记录中 {u} 条无法评分，在 gate.max_error_rate（{max}）以内"
		}
	};
	/* the gate's checks in Chinese: gate-zh.js, the one copy this page shares with report.html */
	Object.keys(RAG_GATE_ZH).forEach(function (k) { T.zh[k] = RAG_GATE_ZH[k]; });
	var PAGE = 20;
	var lang = /^zh/i.test(navigator.language || "") ? "zh" : "en";
	var st = { runsOffset: 0, runsTotal: 0, run: null, recPage: 1, filter: {}, recTotal: 0, summary: null, filters: {},
		csrf: null, marks: {}, checks: null, record: null, recordSeq: null };
	function $(id) { return document.getElementById(id); }
	function t(k, v) {
		var s = (T[lang][k] !== undefined ? T[lang][k] : k);
		if (v) Object.keys(v).forEach(function (x) { s = s.split("{" + x + "}").join(String(v[x])); });
		return s;
	}
	function el(tag, text, cls) {
		var e = document.createElement(tag);
		if (text !== undefined && text !== null) e.textContent = String(text);
		if (cls) e.className = cls;
		return e;
	}
	function td(tr, head, text, cls) {
		var c = el("td", text, cls);
		c.setAttribute("data-h", t(head));
		tr.appendChild(c);
		return c;
	}
	function num(x) { return typeof x === "number" ? x.toFixed(3) : "–"; }
	function pct(x) { return (x * 100).toFixed(1) + "%"; }
	function showError(msg) {
		var e = $("error");
		e.textContent = msg ? t("error") + msg : "";
		e.hidden = !msg;
	}
	/* a path of the API ("/api/...") as a URL relative to the page's <base>, which rag-serve
	 * sets to the path it is served under (a reverse proxy's prefix) */
	function api(path) { return path.replace(/^\//, ""); }
	/* a reply's body, or a rejection: an Error with the server's words, its status and body */
	function reply(r) {
		return r.json().then(function (b) {
			if (!r.ok) {
				var e = new Error(b && b.error ? b.error : "HTTP " + r.status);
				e.status = r.status;
				e.body = b || {};
				throw e;
			}
			return b;
		});
	}
	function get(path) {
		return fetch(api(path), { credentials: "same-origin" }).then(reply);
	}
	/* a write, with the page's CSRF token */
	function post(path, body) {
		return fetch(api(path), {
			method: "POST", credentials: "same-origin",
			headers: { "Content-Type": "application/json", "X-CSRF-Token": st.csrf || "" },
			body: JSON.stringify(body)
		}).then(reply);
	}
	function applyLang() {
		document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
		document.querySelectorAll("[data-t]").forEach(function (e) { e.textContent = t(e.getAttribute("data-t")); });
		$("lang").textContent = t("other");
		document.title = t("title");
		renderRuns();
		renderRun();
		hooks.forEach(function (f) { f(); });
	}
	/* every tab of the nav: its button "tab-NAME" shows section NAME */
	function tab(name) {
		document.querySelectorAll("#tabs [role=tab]").forEach(function (b) {
			var n = b.id.slice(4);
			$(n).hidden = n !== name;
			b.setAttribute("aria-selected", String(n === name));
		});
	}
	function pager(id, offset, total, len) {
		var p = $(id);
		p.querySelector("span").textContent = total ? (offset + 1) + "–" + (offset + len) + " / " + total : "";
		p.querySelector('[data-dir="-1"]').disabled = offset <= 0;
		p.querySelector('[data-dir="1"]').disabled = offset + len >= total;
	}
	function meansText(m) {
		return Object.keys(m || {}).sort().map(function (k) { return k + " " + num(m[k]); }).join(", ");
	}
	/* ---------------------------------------------------------------- the page's address
	 * Every view has a URL: "#/VIEW/ARG/...?KEY=VALUE&...", each part URI-encoded, e.g.
	 * #/history, #/run/ID, #/run/ID?failed=1&q=text, #/run/ID/record/RID, #/compare/BASE/NEW,
	 * #/sets, #/cases/SET?q=text&page=2, #/evals. A script that draws a view says so with here()
	 * (the address changes, nothing is reloaded); a view a user reaches by a link, a reload, a
	 * bookmark or Back is handed to the script that owns it, onRoute(VIEW, fn(args, params)), or
	 * else its tab is shown. */
	var routes = {};
	function parseHash(h) {
		var m = /^#\/([^?]*)(?:\?(.*))?$/.exec(h || ""), r = { view: "", args: [], params: {} };
		if (!m) return r;
		var parts = m[1].split("/").map(function (x) { try { return decodeURIComponent(x); } catch (e) { return x; } });
		r.view = parts.shift();
		r.args = parts.filter(function (x, i) { return x !== "" || i < parts.length - 1; });
		(m[2] || "").split("&").forEach(function (kv) {
			if (!kv) return;
			var i = kv.indexOf("="), k = i < 0 ? kv : kv.slice(0, i), v = i < 0 ? "" : kv.slice(i + 1);
			try { r.params[decodeURIComponent(k)] = decodeURIComponent(v.replace(/\+/g, " ")); } catch (e) { /* kept out */ }
		});
		return r;
	}
	function hashOf(view, args, params) {
		var q = Object.keys(params || {}).filter(function (k) {
			return params[k] !== undefined && params[k] !== null && params[k] !== "" && params[k] !== false;
		}).sort().map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(String(params[k])); }).join("&");
		return "#/" + [view].concat((args || []).map(function (a) { return encodeURIComponent(String(a)); })).join("/") +
			(q ? "?" + q : "");
	}
	/* an href for a view: the page's own address (not <base>'s) and the view's */
	function link(view, args, params) { return location.href.split("#")[0] + hashOf(view, args, params); }
	function here(view, args, params) {
		var h = hashOf(view, args, params);
		if (location.hash !== h) history.pushState(null, "", h);
	}
	function route() {
		var r = parseHash(location.hash);
		if (!r.view) return false;
		if (routes[r.view]) routes[r.view](r.args, r.params);
		else if ($(r.view) && $("tab-" + r.view) && !$("tab-" + r.view).disabled) tab(r.view);
		else return false;
		return true;
	}
	function onRoute(view, f) { routes[view] = f; }
	/* ---------------------------------------------------------------- History */
	var runsData = null, loads = 0, hooks = [], runHooks = [];
	/* for the tests: a count of the replies drawn, on <body> */
	function drawn() { document.body.setAttribute("data-loads", String(++loads)); }
	var runsAsked = 0;
	function loadRuns() {
		var q = "offset=" + st.runsOffset + "&limit=" + PAGE, mine = ++runsAsked;
		Object.keys(st.filters).forEach(function (k) {
			if (st.filters[k]) q += "&" + k + "=" + encodeURIComponent(st.filters[k]);
		});
		return get("/api/runs?" + q).then(function (b) {
			if (mine !== runsAsked) return;   /* a later filter's reply is the one to draw */
			runsData = b;
			st.runsTotal = b.total;
			renderRuns();
			showError("");
			drawn();
		}).catch(function (e) { showError(e.message); drawn(); });
	}
	function renderRuns() {
		var tb = $("runs").tBodies[0];
		if (!runsData) return;
		tb.textContent = "";
		runsData.runs.forEach(function (r) {
			var tr = el("tr", null, "open");
			td(tr, "c_run", r.run);
			td(tr, "c_started", r.started, "num");
			td(tr, "c_label", r.label);
			td(tr, "c_testset", r.testset);
			td(tr, "c_n", r.n, "num");
			td(tr, "c_gate", (r.passed === true ? t("pass") : r.passed === false ? t("fail") : "–") +
			   (r.exit_status > 1 ? " · " + t("exit_n", { s: r.exit_status }) : ""),
			   r.passed === true ? "pass" : r.passed === false ? "fail" : "");
			td(tr, "c_means", meansText(r.means));
			tr.tabIndex = 0;
			tr.addEventListener("click", function () { openRun(r.run); });
			tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") openRun(r.run); });
			tb.appendChild(tr);
		});
		$("runs-count").textContent = runsData.total ?
			t("runs_of", { a: runsData.offset + 1, b: runsData.offset + runsData.runs.length, n: runsData.total }) : t("none");
		pager("runs-pager", runsData.offset, runsData.total, runsData.runs.length);
	}
	/* ---------------------------------------------------------------- a run
	 * #/run/ID: its verdict first, what to fix first (each record a link), its checks, summary,
	 * means and records, filtered by the store (#/run/ID?failed=1&category=C&cause=KEY&metric=M&
	 * below=X&q=TEXT&page=N); #/run/ID/record/SEQ: one record whole (SEQ its place in the run: ids
	 * can be absent or repeat). */
	var recData = null, FILTERS = ["failed", "category", "cause", "metric", "below", "q"];
	/* the run's summary and stored verdict, read once a run */
	function ensureRun(id) {
		if (st.run === id && st.summary && st.checks) return Promise.resolve();
		st.run = id;
		st.summary = st.checks = recData = null;
		$("tab-run").disabled = false;
		return get("/api/runs/" + encodeURIComponent(id)).then(function (s) {
			st.summary = s;
			return get("/api/runs/" + encodeURIComponent(id) + "/checks");
		}).then(function (c) {
			st.checks = c;
			renderRun();
		});
	}
	/* the filters and page of an address's parameters (what is not one is left out) */
	function setFilter(p) {
		st.filter = {};
		FILTERS.forEach(function (k) { if (p[k] !== undefined && p[k] !== "") st.filter[k] = p[k]; });
		if (st.filter.failed !== "1") delete st.filter.failed;
		if (!st.filter.metric || st.filter.below === undefined || isNaN(Number(st.filter.below))) {
			delete st.filter.metric;
			delete st.filter.below;
		}
		st.recPage = Math.max(1, parseInt(p.page, 10) || 1);
	}
	function listParams(page) {
		var p = {};
		Object.keys(st.filter || {}).forEach(function (k) { p[k] = st.filter[k]; });
		if (page > 1) p.page = page;
		return p;
	}
	function showRecordView(on) {
		$("run-main").hidden = on;
		$("record-view").hidden = !on;
	}
	/* the run's list view, its filters from params (the address's) */
	function openRun(id, params) {
		return ensureRun(id).then(function () {
			setFilter(params || {});
			st.recordSeq = null;
			tab("run");
			showRecordView(false);
			here("run", [id], listParams(st.recPage));
			fillFilterForm();
			return loadRecords();
		}).catch(function (e) { showError(e.message); drawn(); });
	}
	function openRecord(id, seq) {
		return ensureRun(id).then(function () {
			tab("run");
			return get("/api/runs/" + encodeURIComponent(id) + "/records/" + encodeURIComponent(seq));
		}).then(function (r) {
			st.record = r;
			st.recordSeq = r.seq;
			showRecordView(true);
			here("run", [id, "record", r.seq]);
			renderRecord();
			window.scrollTo(0, 0);
			showError("");
			drawn();
		}).catch(function (e) { showError(e.message); drawn(); });
	}
	/* a record by its id (Compare pairs by id: #/run/RUN/id/RID), the first line with it, shown
	 * at its own address (#/run/RUN/record/SEQ) */
	function openRecordById(id, rid) {
		return get("/api/runs/" + encodeURIComponent(id) + "/records?limit=1&id=" + encodeURIComponent(rid)).then(function (b) {
			if (!b.records.length) throw new Error(t("no_such_id", { id: rid }));
			history.replaceState(null, "", hashOf("run", [id, "record", b.records[0].seq]));
			return openRecord(id, b.records[0].seq);
		}).catch(function (e) { showError(e.message); drawn(); });
	}
	/* a number as the page shows it */
	function fmt(x, d) { return typeof x === "number" && isFinite(x) ? x.toFixed(d === undefined ? 3 : d) : "–"; }
	/* a gate's check in the page's language: in English the gate's own words (as rag-gate and
	 * report.html say them), else worded from its code and numbers; its message for a run stored
	 * before checks had codes */
	function checkText(k) {
		var a = k && k.args || {};
		if (!k || !k.code || lang === "en" || T[lang]["ck_" + k.code] === undefined) return k && k.message || "";
		return t("ck_" + k.code, {
			metric: a.metric, records: a.records, category: a.category, delta: fmt(a.delta), conf: fmt(a.confidence * 100, 0),
			lo: fmt(a.ci_low), hi: fmt(a.ci_high), mean: fmt(a.mean), op: k.pass ? "≥" : "<", threshold: fmt(a.threshold),
			nulls: a.nulls, applicable: a.applicable, rate: pct(a.rate || 0), max: pct(a.max_error_rate || 0),
			flips: a.flips, unreadable: a.unreadable, passed: a.passed, of: a.of, min: pct(a.min_pass_rate || 0),
			reason: a.reason !== null && a.reason !== undefined ? a.reason : t("rc_" + (a.reason_code || "not_applicable"))
		});
	}
	/* the verdict's reason (c: /checks' reply) in the page's language, as checkText words a check */
	function reasonText(c) {
		var a = c.reason_args, r;
		if (!c.reason_code || !a || lang === "en") return c.reason;
		if (c.reason_code === "outage")
			return t("rs_outage", { u: a.not_scored, n: a.records,
				who: a.remote_failed === a.not_scored ? t("rw_remote") : !a.remote_failed ? t("rw_input") :
					t("rw_mixed", { r: a.remote_failed, i: a.not_scored - a.remote_failed }),
				why: a.capped > 0 ? t("rs_capped", { c: a.capped }) : a.half ? t("rs_half") : a.max_error_rate > 0 ? t("rs_budget", { max: pct(a.max_error_rate) }) : t("rs_zero") });
		r = c.reason_code === "gate_failed" ? t("rs_gate_failed", { check: a.check ? checkText(a.check) : t("rs_a_check") }) :
			c.reason_code === "gate_passed" ? t("rs_gate_passed", { passed: a.passed, "with": a.with_verdict,
				rate: pct(a.with_verdict ? a.passed / a.with_verdict : 0) }) : t("rs_no_threshold");
		if (a.not_scored > 0) r += t("rs_within", { u: a.not_scored, n: a.records, max: pct(a.max_error_rate) });
		return r;
	}
	/* a cause ({kind, metric, threshold, tool, text, who}: causes.c's) in the page's language */
	function causeText(g) {
		/* what the record missed (the gate's message, kind error): from its code where it has one */
		var a = g.args || {};
		if (g.code && lang !== "en" && T[lang]["w_" + g.code] !== undefined)
			return t("w_" + g.code, { metric: a.metric, score: fmt(a.score), threshold: fmt(a.threshold),
				cat: a.category !== undefined ? t("w_cat", { category: a.category }) : "" });
		return t("k_" + g.kind + (g.kind === "outage" ? "_" + (g.who === "service" ? "service" : "judge") : ""),
			{ m: g.metric, t: g.kind === "below" ? num(g.threshold) : g.kind === "noanswer" ? g.tool : g.text });
	}
	function recordLink(seq, text) {
		var a = el("a", text, "rid");
		a.href = link("run", [st.run, "record", seq]);
		return a;
	}
	/* what the opened run shows first: its verdict (PASS/FAIL, the exit status and its reason),
	 * what to fix first (the failing records by cause, the most first, the first cause open, each
	 * record a link that opens it), then the gate's checks, the failed first, as rag-report's page */
	function renderChecks() {
		var c = st.checks, box = $("run-checks"), ul = $("checks-list"), cl = $("causes-list");
		/* the run's verdict as stored with it (its gate's, made once): never worked out here */
		var v = $("run-verdict");
		box.hidden = !c;
		ul.textContent = "";
		cl.textContent = "";
		v.textContent = "";
		$("checks-many").hidden = !c || c.stored !== false;
		if (c && c.stored === false) $("checks-many").textContent = t("ck_old");
		$("causes-title").hidden = $("causes-none").hidden = !c || !c.checks || !c.gated;
		if (!c || !c.stored) return;
		v.setAttribute("data-decision", c.decision);
		v.setAttribute("data-exit", String(c.exit_status));
		v.appendChild(el("span", c.decision === "none" ? t("v_none") : t(c.decision === "pass" ? "ck_ok" : "ck_fail"),
			"badge " + (c.decision === "pass" ? "pass" : c.decision === "fail" ? "fail" : "none")));
		v.appendChild(document.createTextNode(" "));
		v.appendChild(el("span", t("v_exit", { s: c.exit_status, r: reasonText(c) }), "verdict-why"));
		if (!c.checks) return;
		c.checks.forEach(function (k) {
			var li = el("li", null, k.pass ? "ck-ok" : "ck-fail");
			li.setAttribute("data-check", k.check);
			li.setAttribute("data-pass", String(k.pass));
			li.appendChild(el("span", t(k.pass ? "ck_ok" : "ck_fail"), k.pass ? "pass" : "fail"));
			li.appendChild(document.createTextNode(" " + checkText(k)));
			ul.appendChild(li);
		});
		$("causes-none").hidden = c.causes.length > 0;
		c.causes.forEach(function (g, i) {
			var li = el("li", null, "cause"), det = el("details"), sm = el("summary"), ol = el("ol", null, "cause-records");
			li.setAttribute("data-cause", g.cause);
			li.setAttribute("data-count", String(g.count));
			det.open = i === 0;
			/* an outage: the judge's or the service's, its error under it in each record's detail */
			sm.appendChild(el("span", causeText(g), "fail"));
			sm.appendChild(document.createTextNode(": " + (g.count === 1 ? t("nrec1") : t("nrec", { n: g.count }))));
			det.appendChild(sm);
			g.records.forEach(function (r) {
				var rli = el("li");
				rli.appendChild(recordLink(r.seq, r.id || "#" + r.seq));
				if (r.detail) rli.appendChild(el("span", " " + r.detail, "small"));
				ol.appendChild(rli);
			});
			det.appendChild(ol);
			/* all of a cause's records: the records list filtered by it (a run stored before
			 * causes had keys: the count alone) */
			if (g.key) {
				var all = el("a", t("f_all", { n: g.count }), "cause-all");
				all.href = link("run", [st.run], { cause: g.key });
				det.appendChild(el("p", null, "count")).appendChild(all);
			} else if (g.count > g.records.length) {
				det.appendChild(el("p", t("more", { n: g.count - g.records.length }), "count"));
			}
			li.appendChild(det);
			cl.appendChild(li);
		});
	}
	function reviewMetric() { return $("review").metric.value; }
	function loadMarks() {
		var m = reviewMetric();
		$("labels-csv").href = "api/runs/" + encodeURIComponent(st.run) + "/labels.csv" +
			(m ? "?metric=" + encodeURIComponent(m) : "");
		if (!m) { st.marks = {}; return Promise.resolve(); }
		return get("/api/runs/" + encodeURIComponent(st.run) + "/marks?metric=" + encodeURIComponent(m))
			.then(function (b) {
				st.marks = {};
				b.marks.forEach(function (k) { (st.marks[k.seq] = st.marks[k.seq] || []).push(k); });
			});
	}
	function loadRecords() {
		var q = "offset=" + (st.recPage - 1) * PAGE + "&limit=" + PAGE, run = st.run;
		Object.keys(st.filter || {}).forEach(function (k) { q += "&" + k + "=" + encodeURIComponent(st.filter[k]); });
		return get("/api/runs/" + encodeURIComponent(run) + "/records?" + q)
			.then(function (b) { if (run === st.run) recData = b; return loadMarks(); })
			.then(function () { renderRecords(); showError(""); drawn(); })
			.catch(function (e) { showError(e.message); drawn(); });
	}
	function text(v) {
		if (v === undefined || v === null) return "";
		return typeof v === "string" ? v : JSON.stringify(v);
	}
	/* the filter form's choices (the run's causes and metrics) and its values (st.filter) */
	function fillFilterForm() {
		var f = $("rec-filters"), c = st.checks, s = st.summary, flt = st.filter || {};
		function options(sel, list) {
			sel.textContent = "";
			list.forEach(function (o) {
				var e = el("option", o[1]);
				e.value = o[0];
				sel.appendChild(e);
			});
		}
		options(f.cause, [["", t("f_any")]].concat((c && c.causes || []).filter(function (g) { return g.key; })
			.map(function (g) { return [g.key, causeText(g)]; })));
		options(f.metric, [["", t("f_any")]].concat(Object.keys(s && s.means || {}).sort().map(function (m) { return [m, m]; })));
		f.failed.checked = flt.failed === "1";
		f.category.value = flt.category || "";
		f.cause.value = flt.cause || "";
		f.metric.value = flt.metric || "";
		f.below.value = flt.below !== undefined ? flt.below : "";
		f.q.value = flt.q || "";
	}
	function renderRun() {
		var s = st.summary, dl = $("run-summary"), tb = $("run-means").tBodies[0];
		if (!s) return;
		$("run-title").textContent = t("run_title", { id: s.run });
		renderChecks();
		dl.textContent = "";
		[["s_label", s.label], ["s_started", s.started], ["s_ended", s.ended], ["s_commit", s.commit],
		 ["s_testset", s.testset ? s.testset + (s.testset_version ? "@" + s.testset_version : "") : null],
		 ["s_n", s.n], ["s_err", s.records_with_errors],
		 ["s_gate", s.passed === true ? t("pass") : s.passed === false ? t("fail") : null],
		 ["s_exit", s.verdict ? t("v_exit", { s: s.verdict.exit_status, r: reasonText(s.verdict) }) : s.exit_status],
		 ["s_rate", s.verdict && s.verdict.pass_rate !== null && s.verdict.pass_rate !== undefined ?
			t("rate_of", { p: pct(s.verdict.pass_rate), a: s.verdict.passed, b: s.verdict.with_verdict }) : null],
		 ["s_system", s.system ? JSON.stringify(s.system) : null]].forEach(function (p) {
			if (p[1] === null || p[1] === undefined) return;
			dl.appendChild(el("dt", t(p[0])));
			dl.appendChild(el("dd", p[1]));
		});
		tb.textContent = "";
		var sel = $("review").metric, keep = sel.value;
		sel.textContent = "";
		Object.keys(s.means || {}).sort().forEach(function (k) {
			var o = el("option", k);
			o.value = k;
			sel.appendChild(o);
		});
		if (keep && s.means && keep in s.means) sel.value = keep;
		Object.keys(s.means || {}).sort().forEach(function (k) {
			var tr = el("tr");
			td(tr, "c_metric", k);
			td(tr, "c_mean", num(s.means[k]), "num");
			tb.appendChild(tr);
		});
		fillFilterForm();
		if (recData) renderRecords();
		if (st.record && st.recordSeq) renderRecord();
	}
	function renderRecords() {
		var tb = $("records").tBodies[0];
		if (!recData) return;
		tb.textContent = "";
		recData.records.forEach(function (r) {
			var rec = r.record || {}, tr = el("tr");
			td(tr, "#", r.seq, "num");
			td(tr, "c_id", "").appendChild(recordLink(r.seq, r.id || "#" + r.seq));
			td(tr, "c_category", r.category);
			td(tr, "c_question", text(rec.question)).className = "";
			td(tr, "c_answer", "").appendChild(el("div", text(rec.answer), "long"));
			td(tr, "c_scores", meansText(rec.scores));
			var pc = td(tr, "c_passed", r.passed === true ? t("pass") : r.passed === false ? t("fail") : "–",
			   r.passed === true ? "pass" : r.passed === false ? "fail" : "");
			/* why it did not pass, as stored with the run (the gate's verdict, causes.c's words) */
			if (r.why || r.cause) pc.appendChild(el("div", r.why ? causeText(r.why) : r.cause, "small cause-why"));
			reviewCell(td(tr, "c_review", ""), r.seq);
			tb.appendChild(tr);
		});
		var filtered = Object.keys(st.filter || {}).length > 0;
		$("records-count").textContent = t("recs_of", { a: recData.total ? recData.offset + 1 : 0,
			b: recData.offset + recData.records.length, n: recData.total }) + (filtered ? t("f_showing") : "");
		pager("records-pager", recData.offset, recData.total, recData.records.length);
	}
	/* ---------------------------------------------------------------- a record */
	/* verdict lists by kind, as report.js reads them: one entry per chunk ("chunk": a context's
	 * verdict, by position), one per claim, or one object */
	function verdictLists(v) {
		var chunks = [], claims = [], other = [];
		Object.keys(v || {}).forEach(function (m) {
			var list = v[m];
			if (Array.isArray(list) && list.length && list[0] && typeof list[0] === "object" &&
			    ("chunk" in list[0] || "chunk_is_context" in list[0])) chunks.push([m, list]);
			else if (Array.isArray(list)) claims.push([m, list]);
			else if (list && typeof list === "object") other.push([m, list]);
		});
		return { chunks: chunks, claims: claims, other: other };
	}
	function mark(v) {
		return v === true ? el("span", "✔ " + t("yes"), "pass") : v === false ? el("span", "✘ " + t("no"), "fail") : el("span", "–");
	}
	function textBlock(box, head, v) {
		box.appendChild(el("h3", t(head)));
		box.appendChild(el("div", v === null || v === undefined || v === "" ? t("none_text") : text(v), "text"));
	}
	function renderRecord() {
		var r = st.record, box = $("record-body"), f = r.fields || {}, rec = r.record || {}, ver = r.verdict;
		var thr = st.summary && st.summary.verdict && st.summary.verdict.thresholds || {}, vl, p, tb, metrics;
		var back = $("record-back");
		back.textContent = t("r_back", { id: st.run });
		back.href = link("run", [st.run], listParams(st.recPage || 1));
		$("record-title").textContent = r.id ? t("r_title", { seq: r.seq, id: r.id }) : t("r_title_noid", { seq: r.seq });
		box.textContent = "";
		p = box.appendChild(el("p", null, "record-status"));
		p.appendChild(el("span", r.passed === true ? t("ck_ok") : r.passed === false ? t("ck_fail") : r.why ? t("r_error") : "–",
			"badge " + (r.passed === true ? "pass" : r.passed === false || r.why ? "fail" : "none")));
		if (r.why || r.cause) {
			box.appendChild(el("h3", t("r_why")));
			p = box.appendChild(el("p", null, "record-why fail"));
			p.textContent = r.why ? causeText(r.why) + (r.why.detail ? " — " + r.why.detail : "") : r.cause;
		}
		/* the scores against their thresholds: the record's checks as its gate stored them */
		box.appendChild(el("h3", t("r_scores")));
		tb = box.appendChild(el("table", null, "stack record-scores"));
		var hr = tb.appendChild(el("thead")).appendChild(el("tr"));
		["c_metric", "r_score", "r_threshold", "r_result"].forEach(function (h) { hr.appendChild(el("th", t(h))); });
		tb = tb.appendChild(el("tbody"));
		var checks = {};
		(ver && ver.checks || []).forEach(function (k) { checks[k.metric] = k; });
		metrics = Object.keys(rec.scores || {});
		Object.keys(checks).forEach(function (m) { if (metrics.indexOf(m) < 0) metrics.push(m); });
		metrics.forEach(function (m) {
			var tr = el("tr"), k = checks[m], x = rec.scores ? rec.scores[m] : undefined, th = [];
			tr.setAttribute("data-metric", m);
			td(tr, "c_metric", m);
			td(tr, "r_score", typeof x === "number" ? fmt(x) : rec.not_applicable && rec.not_applicable[m] ?
				t("r_na", { r: rec.not_applicable[m] }) : "–", "num");
			if (k && typeof k.threshold === "number") th.push(t("r_thr_rec", { t: fmt(k.threshold) }));
			if (thr.mean && typeof thr.mean[m] === "number") th.push(t("r_thr_mean", { t: fmt(thr.mean[m]) }));
			td(tr, "r_threshold", th.join("; "));
			td(tr, "r_result", k ? t("st_" + k.status) : "", k ? (k.status === "pass" ? "pass" : k.status === "skipped" ? "" : "fail") : "");
			tb.appendChild(tr);
		});
		if (!ver) box.appendChild(el("p", t("r_old"), "count"));
		textBlock(box, "question", f.question);
		textBlock(box, "answer", f.answer);
		textBlock(box, "reference", f.reference);
		/* each context with its chunk verdicts (matched by position, as report.c matches them) */
		vl = verdictLists(rec.verdicts);
		box.appendChild(el("h3", t("contexts")));
		if (!f.contexts || !f.contexts.length) box.appendChild(el("p", t("none_text"), "count"));
		else {
			var ol = box.appendChild(el("ol", null, "contexts"));
			f.contexts.forEach(function (c, i) {
				var li = ol.appendChild(el("li"));
				li.appendChild(el("div", c, "text"));
				vl.chunks.forEach(function (e) {
					var cv = e[1][i], d;
					if (!cv) return;
					d = li.appendChild(el("div", null, "small chunk-verdict"));
					d.appendChild(document.createTextNode(e[0] + ": "));
					d.appendChild(mark(cv.verdict));
					if (typeof cv.score === "number") d.appendChild(document.createTextNode(" " + fmt(cv.score)));
					if (cv.reason) d.appendChild(document.createTextNode(" — " + cv.reason));
				});
			});
		}
		/* the claims with their verdicts and reasons */
		vl.claims.forEach(function (e) {
			var scored = e[1].some(function (c) { return c && typeof c.score === "number"; }), tbl, h, body;
			box.appendChild(el("h3", t("r_claims", { m: e[0] })));
			tbl = box.appendChild(el("table", null, "stack claims"));
			tbl.setAttribute("data-metric", e[0]);
			h = tbl.appendChild(el("thead")).appendChild(el("tr"));
			(scored ? ["r_claim", "r_verdict", "r_score", "r_reason"] : ["r_claim", "r_verdict", "r_reason"])
				.forEach(function (k) { h.appendChild(el("th", t(k))); });
			body = tbl.appendChild(el("tbody"));
			e[1].forEach(function (c) {
				var tr = body.appendChild(el("tr")), what = c && typeof c === "object" ? (c.claim || c.statement || c.text || "") : String(c);
				if (c && c.source) what += " (" + c.source + (c["class"] ? ", " + c["class"] : "") + ")";
				td(tr, "r_claim", what);
				td(tr, "r_verdict", "", "claim-verdict").appendChild(mark(c && c.verdict));
				if (scored) td(tr, "r_score", fmt(c && c.score), "num");
				td(tr, "r_reason", c && c.reason ? c.reason : "");
			});
		});
		vl.other.forEach(function (e) {
			var o = e[1];
			box.appendChild(el("h3", t("r_other", { m: e[0] })));
			box.appendChild(el("p", (typeof o.score === "number" ? fmt(o.score) + " " : "") +
				(o.pass === true ? t("pass") : o.pass === false ? t("fail") : "") + (o.reason ? " — " + text(o.reason) : ""), "text"));
		});
		if (Array.isArray(rec.errors) && rec.errors.length) {
			box.appendChild(el("h3", t("r_errors")));
			var ul = box.appendChild(el("ul", null, "errors"));
			rec.errors.forEach(function (e) {
				ul.appendChild(el("li", [e && e.tool, e && e.metric].filter(Boolean).join(": ") + ": " + text(e && e.message), "fail"));
			});
		}
		renderRecordMarks(metrics);
	}
	/* the record's review marks, a row for every metric it has (or was marked on) */
	function renderRecordMarks(metrics) {
		var r = st.record, tb = $("record-marks").tBodies[0], by = {};
		$("record-who").value = $("review").who.value;
		(r.marks || []).forEach(function (k) {
			(by[k.metric] = by[k.metric] || []).push(k);
			if (metrics.indexOf(k.metric) < 0) metrics.push(k.metric);
		});
		tb.textContent = "";
		metrics.forEach(function (m) {
			var tr = el("tr"), shown = td(tr, "c_metric", m);
			tr.setAttribute("data-metric", m);
			shown = td(tr, "r_marks", "", "marks");
			if (!(by[m] || []).length) shown.appendChild(el("div", t("r_nomarks")));
			(by[m] || []).forEach(function (k) { shown.appendChild(el("div", markText(k))); });
			markControls(td(tr, "c_review", ""), r.seq, m, function () {
				return get("/api/runs/" + encodeURIComponent(st.run) + "/records/" + r.seq).then(function (x) {
					st.record = x;
					renderRecord();
				});
			});
			tb.appendChild(tr);
		});
	}
	/* ---------------------------------------------------------------- review marks */
	function markText(k) {
		return k.who + ": " + (k.label === 1 ? "✔" : k.label === 0 ? "✘" : num(k.label)) +
			(k.comment ? " – " + k.comment : "");
	}
	/* a records row's review: its marks of the menu's metric and the controls to mark it */
	function reviewCell(c, seq) {
		var shown = el("div", null, "marks");
		(st.marks[seq] || []).forEach(function (k) { shown.appendChild(el("div", markText(k))); });
		c.appendChild(shown);
		markControls(c, seq, null, function () {
			return loadMarks().then(renderRecords);
		});
	}
	/* right, wrong, a score and a comment for record seq's metric (null: the menu's); after(),
	 * once a mark is stored, draws it */
	function markControls(c, seq, metric, after) {
		var box = el("div", null, "review"), note = el("span", null, "note");
		var comment = el("input"), score = el("input");
		comment.type = "text";
		comment.placeholder = t("comment");
		comment.setAttribute("aria-label", t("comment"));
		comment.maxLength = 2000;
		comment.className = "comment";
		score.type = "number";
		score.step = "any";
		score.placeholder = t("score");
		score.setAttribute("aria-label", t("score"));
		score.className = "score";
		[["right", { verdict: true }], ["wrong", { verdict: false }], ["save", null]].forEach(function (b) {
			var btn = el("button", t(b[0]), "mark-" + b[0]);
			btn.type = "button";
			btn.addEventListener("click", function () {
				var v = b[1];
				if (!v) {
					if (score.value === "") return;
					v = { label: Number(score.value) };
				}
				saveMark(seq, metric || reviewMetric(), v, comment.value, note, after);
			});
			box.appendChild(btn);
		});
		box.appendChild(score);
		box.appendChild(comment);
		box.appendChild(note);
		c.appendChild(box);
	}
	function saveMark(seq, metric, v, comment, note, after) {
		var who = $("review").who.value.trim(), body = { seq: seq, metric: metric, who: who };
		if (!who) { note.textContent = t("need_who"); return; }
		Object.keys(v).forEach(function (k) { body[k] = v[k]; });
		if (comment) body.comment = comment;
		post("/api/runs/" + encodeURIComponent(st.run) + "/marks", body).then(function () { return after(); }).then(function () {
			drawn();
		}).catch(function (e) { note.textContent = t("error") + e.message; drawn(); });
	}
	/* ---------------------------------------------------------------- for the other tabs' scripts
	 * (sets.js, run.js): the words of both languages, the helpers, a run opened, the History
	 * reloaded, a hook run when the language changes */
	window.ragServe = {
		words: function (w) {
			Object.keys(w).forEach(function (l) { Object.keys(w[l]).forEach(function (k) { T[l][k] = w[l][k]; }); });
		},
		t: t, el: el, td: td, get: get, post: post, api: api, tab: tab, showError: showError, drawn: drawn,
		link: link, here: here, onRoute: onRoute, parse: function () { return parseHash(location.hash); },
		openRun: function (id) { return openRun(id, {}); },
		/* a run added (one started from the page ended): the runs and everything drawn from
		 * them (History's trends, onRuns) read again, so that none stays a run behind */
		reloadRuns: function () {
			runHooks.forEach(function (f) { f(); });
			return loadRuns();
		},
		onRuns: function (f) { runHooks.push(f); },
		csrf: function () { return st.csrf; },
		summary: function () { return st.summary; },
		onLang: function (f) { hooks.push(f); }
	};
	/* ---------------------------------------------------------------- wiring */
	document.addEventListener("DOMContentLoaded", function () {
		$("lang").addEventListener("click", function () { lang = lang === "zh" ? "en" : "zh"; applyLang(); });
		$("tab-history").addEventListener("click", function () { tab("history"); here("history"); });
		$("tab-run").addEventListener("click", function () {
			if (!st.run) return;
			tab("run");
			if (st.recordSeq) here("run", [st.run, "record", st.recordSeq]);
			else here("run", [st.run], listParams(st.recPage || 1));
		});
		onRoute("history", function () { tab("history"); });
		/* #/run/ID?filters, #/run/ID/record/SEQ: a link, a reload, a bookmark, Back */
		onRoute("run", function (a, p) {
			if (!a[0]) return;
			if (a[1] === "record" && a[2]) openRecord(a[0], a[2]);
			else if (a[1] === "id" && a[2] !== undefined) openRecordById(a[0], a[2]);
			else openRun(a[0], p);
		});
		window.addEventListener("hashchange", route);
		$("filters").addEventListener("submit", function (ev) {
			var f = ev.target;
			ev.preventDefault();
			st.filters = { label: f.label.value, commit: f.commit.value, testset: f.testset.value, since: f.since.value,
				until: f.until.value };
			st.runsOffset = 0;
			loadRuns();
		});
		$("runs-pager").addEventListener("click", function (ev) {
			var d = ev.target.getAttribute && ev.target.getAttribute("data-dir");
			if (!d) return;
			st.runsOffset = Math.max(0, st.runsOffset + Number(d) * PAGE);
			loadRuns();
		});
		$("records-pager").addEventListener("click", function (ev) {
			var d = ev.target.getAttribute && ev.target.getAttribute("data-dir");
			if (!d) return;
			st.recPage = Math.max(1, st.recPage + Number(d));
			here("run", [st.run], listParams(st.recPage));
			loadRecords();
		});
		/* the records' filters: done by the store, kept in the address */
		$("rec-filters").addEventListener("submit", function (ev) {
			var f = ev.target;
			ev.preventDefault();
			setFilter({ failed: f.failed.checked ? "1" : "", category: f.category.value.trim(), cause: f.cause.value,
				metric: f.metric.value, below: f.below.value, q: f.q.value.trim() });
			here("run", [st.run], listParams(1));
			loadRecords();
		});
		$("rec-clear").addEventListener("click", function () {
			setFilter({});
			fillFilterForm();
			here("run", [st.run], {});
			loadRecords();
		});
		/* one reviewer's name, in the records' form and a record's */
		$("record-who").addEventListener("input", function () { $("review").who.value = $("record-who").value; });
		$("record-review").addEventListener("submit", function (ev) { ev.preventDefault(); });
		$("review").addEventListener("submit", function (ev) { ev.preventDefault(); });
		$("review").metric.addEventListener("change", function () {
			loadMarks().then(function () { renderRecords(); drawn(); });
		});
		applyLang();
		get("/api/session").then(function (b) { st.csrf = b.csrf; }).catch(function (e) { showError(e.message); });
		loadRuns();
		/* a URL linked, bookmarked or reloaded: its view, once the other scripts have said
		 * which views they own (their DOMContentLoaded handlers run before this timer) */
		setTimeout(route, 0);
	});
})();
