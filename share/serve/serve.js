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
			run_title: "Run {id}", other: "中文", error: "Error: ",
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
			rate_of: "{p} ({a} of {b} records without errors or nulls)"
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
			run_title: "运行 {id}", other: "English", error: "错误：",
			reviewer: "审核人", metric: "审核指标", export: "导出标注 (CSV)", c_review: "审核",
			right: "正确", wrong: "错误", score: "分数", comment: "备注", save: "保存",
			saved: "已保存", need_who: "请先填写审核人",
			checks: "检查项", causes: "先修复什么", no_causes: "没有未通过的记录。", ck_fail: "未通过", ck_ok: "通过",
			k_below: "{m} 低于 {t}", k_null: "{m}：没有分数", k_noanswer: "没有回答（{t} 失败）", k_error: "错误：{t}",
			k_outage_judge: "评审模型调用失败", k_outage_service: "RAG 服务调用失败",
			k_miss: "检索未命中：没有找回相关文档",
			nrec: "{n} 条记录", nrec1: "1 条记录", more: "还有 {n} 条",
			ck_old: "此运行在存储开始保存结论之前存入：结论见其运行目录的 gate.json。",
			v_exit: "退出状态 {s}：{r}", v_none: "无结论", s_exit: "退出状态", s_rate: "通过率",
			rate_of: "{p}（{b} 条无错误或空值的记录中 {a} 条通过）"
		}
	};
	var PAGE = 20;
	var lang = /^zh/i.test(navigator.language || "") ? "zh" : "en";
	var st = { runsOffset: 0, runsTotal: 0, run: null, recOffset: 0, recTotal: 0, summary: null, filters: {},
		csrf: null, marks: {}, checks: null };
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
	function get(path) {
		return fetch(api(path), { credentials: "same-origin" }).then(function (r) {
			return r.json().then(function (b) {
				if (!r.ok) throw new Error(b && b.error ? b.error : "HTTP " + r.status);
				return b;
			});
		});
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
	function loadRuns() {
		var q = "offset=" + st.runsOffset + "&limit=" + PAGE;
		Object.keys(st.filters).forEach(function (k) {
			if (st.filters[k]) q += "&" + k + "=" + encodeURIComponent(st.filters[k]);
		});
		return get("/api/runs?" + q).then(function (b) {
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
			   (r.exit_status > 1 ? " · exit " + r.exit_status : ""),
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
	/* ---------------------------------------------------------------- a run */
	var recData = null;
	function openRun(id) {
		st.run = id;
		st.recOffset = 0;
		$("tab-run").disabled = false;
		return get("/api/runs/" + encodeURIComponent(id)).then(function (s) {
			st.summary = s;
			return get("/api/runs/" + encodeURIComponent(id) + "/checks");
		}).then(function (c) {
			st.checks = c;
			tab("run");
			here("run", [id]);
			renderRun();
			return loadRecords();
		}).catch(function (e) { showError(e.message); drawn(); });
	}
	/* what the opened run shows first: the gate's checks, the failed ones first, and the
	 * failing records by cause, the most first (the first cause open), as rag-report's page */
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
		v.appendChild(el("span", c.decision === "none" ? t("v_none") : t(c.decision === "pass" ? "pass" : "fail"),
			c.decision === "pass" ? "pass" : c.decision === "fail" ? "fail" : ""));
		v.appendChild(document.createTextNode(" · "));
		v.appendChild(el("span", t("v_exit", { s: c.exit_status, r: c.reason }), c.exit_status ? "fail" : "pass"));
		if (!c.checks) return;
		c.checks.forEach(function (k) {
			var li = el("li", null, k.pass ? "ck-ok" : "ck-fail");
			li.setAttribute("data-check", k.check);
			li.setAttribute("data-pass", String(k.pass));
			li.appendChild(el("span", t(k.pass ? "ck_ok" : "ck_fail"), k.pass ? "pass" : "fail"));
			li.appendChild(document.createTextNode(" " + k.message));
			ul.appendChild(li);
		});
		$("causes-none").hidden = c.causes.length > 0;
		c.causes.forEach(function (g, i) {
			var li = el("li", null, "cause"), det = el("details"), sm = el("summary"), ol = el("ol", null, "cause-records");
			li.setAttribute("data-cause", g.cause);
			li.setAttribute("data-count", String(g.count));
			det.open = i === 0;
			/* an outage: the judge's or the service's, its error under it in each record's detail */
			sm.appendChild(el("span", t("k_" + g.kind + (g.kind === "outage" ? "_" + (g.who === "service" ? "service" : "judge") : ""), { m: g.metric, t: g.kind === "below" ? num(g.threshold) :
				g.kind === "noanswer" ? g.tool : g.text }), "fail"));
			sm.appendChild(document.createTextNode(": " + (g.count === 1 ? t("nrec1") : t("nrec", { n: g.count }))));
			det.appendChild(sm);
			g.records.forEach(function (r) {
				var rli = el("li");
				rli.appendChild(el("span", r.id, "rid"));
				if (r.detail) rli.appendChild(el("span", " " + r.detail, "small"));
				ol.appendChild(rli);
			});
			det.appendChild(ol);
			if (g.count > g.records.length) det.appendChild(el("p", t("more", { n: g.count - g.records.length }), "count"));
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
		return get("/api/runs/" + encodeURIComponent(st.run) + "/records?offset=" + st.recOffset + "&limit=" + PAGE)
			.then(function (b) { recData = b; return loadMarks(); })
			.then(function () { renderRecords(); showError(""); drawn(); })
			.catch(function (e) { showError(e.message); drawn(); });
	}
	function text(v) {
		if (v === undefined || v === null) return "";
		return typeof v === "string" ? v : JSON.stringify(v);
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
		 ["s_exit", s.verdict ? t("v_exit", { s: s.verdict.exit_status, r: s.verdict.reason }) : s.exit_status],
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
		if (recData) renderRecords();
	}
	function renderRecords() {
		var tb = $("records").tBodies[0];
		tb.textContent = "";
		recData.records.forEach(function (r) {
			var rec = r.record || {}, tr = el("tr");
			td(tr, "#", r.seq, "num");
			td(tr, "c_id", r.id);
			td(tr, "c_category", r.category);
			td(tr, "c_question", text(rec.question)).className = "";
			td(tr, "c_answer", "").appendChild(el("div", text(rec.answer), "long"));
			td(tr, "c_scores", meansText(rec.scores));
			var pc = td(tr, "c_passed", r.passed === true ? t("pass") : r.passed === false ? t("fail") : "–",
			   r.passed === true ? "pass" : r.passed === false ? "fail" : "");
			/* why it did not pass, as stored with the run (the gate's verdict, causes.c's words) */
			if (r.cause) pc.appendChild(el("div", r.cause, "small cause-why"));
			reviewCell(td(tr, "c_review", ""), r.seq);
			tb.appendChild(tr);
		});
		$("records-count").textContent = t("recs_of", { a: recData.total ? recData.offset + 1 : 0,
			b: recData.offset + recData.records.length, n: recData.total });
		pager("records-pager", recData.offset, recData.total, recData.records.length);
	}
	/* ---------------------------------------------------------------- review marks */
	function markText(k) {
		return k.who + ": " + (k.label === 1 ? "✔" : k.label === 0 ? "✘" : num(k.label)) +
			(k.comment ? " – " + k.comment : "");
	}
	function reviewCell(c, seq) {
		var box = el("div", null, "review"), shown = el("div", null, "marks"), note = el("span", null, "note");
		var comment = el("input"), score = el("input");
		(st.marks[seq] || []).forEach(function (k) { shown.appendChild(el("div", markText(k))); });
		comment.type = "text";
		comment.placeholder = t("comment");
		comment.maxLength = 2000;
		comment.className = "comment";
		score.type = "number";
		score.step = "any";
		score.placeholder = t("score");
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
				saveMark(seq, v, comment.value, note);
			});
			box.appendChild(btn);
		});
		box.appendChild(score);
		box.appendChild(comment);
		box.appendChild(note);
		c.appendChild(shown);
		c.appendChild(box);
	}
	function saveMark(seq, v, comment, note) {
		var who = $("review").who.value.trim(), body = { seq: seq, metric: reviewMetric(), who: who };
		if (!who) { note.textContent = t("need_who"); return; }
		Object.keys(v).forEach(function (k) { body[k] = v[k]; });
		if (comment) body.comment = comment;
		fetch("api/runs/" + encodeURIComponent(st.run) + "/marks", {
			method: "POST", credentials: "same-origin",
			headers: { "Content-Type": "application/json", "X-CSRF-Token": st.csrf || "" },
			body: JSON.stringify(body)
		}).then(function (r) {
			return r.json().then(function (b) { if (!r.ok) throw new Error(b.error || "HTTP " + r.status); });
		}).then(loadMarks).then(function () {
			renderRecords();
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
		t: t, el: el, td: td, get: get, api: api, tab: tab, showError: showError, drawn: drawn,
		link: link, here: here, onRoute: onRoute, parse: function () { return parseHash(location.hash); },
		openRun: function (id) { return openRun(id); },
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
		$("tab-run").addEventListener("click", function () { if (st.run) { tab("run"); here("run", [st.run]); } });
		onRoute("history", function () { tab("history"); });
		onRoute("run", function (a) {
			if (!a[0]) return;
			if (a[0] === st.run && st.summary) tab("run");
			else openRun(a[0]);
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
			st.recOffset = Math.max(0, st.recOffset + Number(d) * PAGE);
			loadRecords();
		});
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
