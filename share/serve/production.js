/* production.js - rag-serve's Production tab, in English and Chinese: the production windows
 * the store keeps (rag-store add-window), each metric's mean per window over time against its
 * threshold (small SVG charts drawn here: History's chart is private to history.js), and a
 * window opened (#/production/ID): its records worst first, a link to the team's trace viewer
 * (trace_url, the trace id URL-encoded) and "add to test set", which makes a record a case of
 * a test set through the Cases tab's own edit (POST /api/production/add). Every text of the
 * data goes in through textContent, never as HTML. */
"use strict";
(function () {
	var R = window.ragServe, t = R.t, el = R.el, td = R.td;
	var SVG = "http://www.w3.org/2000/svg";
	R.words({
		en: {
			production: "Production", p_windows: "Windows", p_none: "no production windows: rag-store add-window keeps them",
			p_of: "{n} windows, oldest to newest (of {total})", p_c_window: "Window", p_c_from: "From", p_c_to: "To",
			p_c_records: "Records", p_c_pass_rate: "Pass rate", p_c_decision: "Decision", p_c_means: "Means",
			p_pass: "pass", p_fail: "fail", p_open: "Open", p_threshold: "threshold {v}", p_pass_rate: "pass rate",
			p_worst: "Window {n}: its worst records, lowest score first", p_c_seq: "#", p_c_score: "Score",
			p_c_question: "Question", p_c_answer: "Answer", p_c_trace: "Trace", p_c_add: "Add to test set",
			p_view: "view trace", p_no_link: "no trace_url configured", p_testset: "Test set", p_who: "Your name",
			p_add: "Add", p_added: "added to {name} as version {version}", p_no_sets: "no test sets: make one in Test sets",
			p_by: "Ranked by", p_lowest: "each record's lowest score", p_records_of: "{n} of {total} records"
		},
		zh: {
			production: "生产", p_windows: "窗口", p_none: "没有生产窗口：用 rag-store add-window 保存",
			p_of: "{n} 个窗口，从早到晚（共 {total} 个）", p_c_window: "窗口", p_c_from: "开始", p_c_to: "结束",
			p_c_records: "记录数", p_c_pass_rate: "通过率", p_c_decision: "结论", p_c_means: "均值",
			p_pass: "通过", p_fail: "未通过", p_open: "打开", p_threshold: "阈值 {v}", p_pass_rate: "通过率",
			p_worst: "窗口 {n}：最差的记录，分数最低的在前", p_c_seq: "序号", p_c_score: "分数",
			p_c_question: "问题", p_c_answer: "回答", p_c_trace: "链路", p_c_add: "加入测试集",
			p_view: "查看链路", p_no_link: "未配置 trace_url", p_testset: "测试集", p_who: "你的名字",
			p_add: "加入", p_added: "已加入 {name}，版本 {version}", p_no_sets: "没有测试集：请在“测试集”中创建",
			p_by: "排序依据", p_lowest: "每条记录的最低分", p_records_of: "{total} 条记录中的 {n} 条"
		}
	});
	var st = { windows: null, open: null, recs: null, sets: [], traceUrl: null, metric: "", loads: 0 };
	function $(id) { return document.getElementById(id); }
	/* for the tests: a count of this tab's replies drawn, on <body> */
	function pdrawn() { document.body.setAttribute("data-prod-loads", String(++st.loads)); }
	function num(x) { return typeof x === "number" ? x.toFixed(3) : "–"; }
	function svg(tag, attrs, text) {
		var e = document.createElementNS(SVG, tag);
		Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
		if (text !== undefined) e.textContent = String(text);
		return e;
	}
	/* the trace viewer's link: trace_url with {trace_id} the id URL-encoded; only http(s) */
	function traceLink(id) {
		var u = st.traceUrl;
		if (!u || !id || !/^https?:\/\//i.test(u)) return null;
		return u.split("{trace_id}").join(encodeURIComponent(id));
	}
	/* each window's threshold of metric: its gate's mean check; of the pass rate (metric null),
	 * its min_pass_rate (null: none) */
	function threshold(w, metric) {
		var th = null;
		(w.checks || []).forEach(function (c) {
			var a = c.args || {};
			if (metric === null && c.code === "pass_rate" && typeof a.min_pass_rate === "number") th = a.min_pass_rate;
			if (metric !== null && c.code === "mean" && a.metric === metric && typeof a.threshold === "number") th = a.threshold;
		});
		return th;
	}
	/* one chart: values per window (null: none) on [0, 1], the threshold dashed, a failing
	 * window's point marked */
	function chart(title, values, ths, ws) {
		var W = 360, H = 150, L = 36, Rm = 12, Tp = 22, B = 26, pw = W - L - Rm, ph = H - Tp - B, n = values.length;
		var s = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "trend prod", role: "img", "data-metric": title });
		var pts = [], i, th = null;
		s.setAttribute("aria-label", title);
		s.appendChild(svg("text", { x: 2, y: 14, "class": "t-title" }, title));
		function X(k) { return L + (n === 1 ? pw / 2 : pw * k / (n - 1)); }
		function Y(v) { return Tp + ph - Math.max(0, Math.min(1, v)) * ph; }
		[0, 0.5, 1].forEach(function (v) {
			s.appendChild(svg("line", { x1: L, x2: W - Rm, y1: Y(v), y2: Y(v), "class": "t-grid" }));
			s.appendChild(svg("text", { x: L - 4, y: Y(v) + 3, "class": "t-y" }, v.toFixed(1)));
		});
		ths.forEach(function (v) { if (typeof v === "number") th = v; });
		if (th !== null) {
			s.appendChild(svg("line", { x1: L, x2: W - Rm, y1: Y(th), y2: Y(th), "class": "t-thr", "data-threshold": th }));
			s.appendChild(svg("text", { x: W - Rm, y: Y(th) - 3, "class": "t-thr-l", "text-anchor": "end" }, t("p_threshold", { v: th })));
		}
		var every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(pw / 90))));
		for (i = 0; i < n; i += every)
			s.appendChild(svg("text", { x: X(i), y: H - 8, "class": "t-x", "text-anchor": n === 1 ? "middle" : i === 0 ? "start" : i + every >= n ? "end" : "middle" },
				String(ws[i].from || "").slice(5, 16).replace("T", " ") || "#" + ws[i].window));
		for (i = 0; i < n; i++) if (typeof values[i] === "number") pts.push([X(i), Y(values[i]), i]);
		if (pts.length > 1)
			s.appendChild(svg("polyline", { points: pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "),
				"class": "t-line" }));
		pts.forEach(function (p) {
			var below = typeof ths[p[2]] === "number" && values[p[2]] < ths[p[2]];
			var c = svg("circle", { cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 3.5, "class": below ? "t-pt t-bad" : "t-pt" });
			c.appendChild(svg("title", {}, "#" + ws[p[2]].id + " · " + (ws[p[2]].from || "") + " · " + num(values[p[2]])));
			s.appendChild(c);
		});
		return s;
	}
	function renderCharts() {
		var box = $("p-charts"), ws = st.windows ? st.windows.windows : [], metrics = {};
		box.textContent = "";
		if (!ws.length) return;
		ws.forEach(function (w) { Object.keys(w.means || {}).forEach(function (m) { metrics[m] = 1; }); });
		Object.keys(metrics).sort().forEach(function (m) {
			box.appendChild(chart(m, ws.map(function (w) { return w.means ? w.means[m] : null; }),
				ws.map(function (w) { return threshold(w, m); }), ws));
		});
		box.appendChild(chart(t("p_pass_rate"), ws.map(function (w) { return w.pass_rate; }), ws.map(function (w) { return threshold(w, null); }), ws));
	}
	function renderWindows() {
		var tb = $("p-windows").querySelector("tbody"), ws = st.windows ? st.windows.windows : [];
		tb.textContent = "";
		$("p-count").textContent = !st.windows ? "" : ws.length ? t("p_of", { n: ws.length, total: st.windows.total }) : t("p_none");
		ws.slice().reverse().forEach(function (w) {
			var tr = el("tr"), a = el("a", "#" + w.id);
			a.href = R.link("production", [String(w.id)]);
			a.setAttribute("data-window", String(w.id));
			td(tr, "p_c_window", "").appendChild(a);
			td(tr, "p_c_from", w.from || "–");
			td(tr, "p_c_to", w.to || "–");
			td(tr, "p_c_records", w.records);
			td(tr, "p_c_pass_rate", typeof w.pass_rate === "number" ? (w.pass_rate * 100).toFixed(1) + "%" : "–");
			td(tr, "p_c_decision", w.pass ? t("p_pass") : t("p_fail"), w.pass ? "ok" : "bad");
			td(tr, "p_c_means", Object.keys(w.means || {}).sort().map(function (m) { return m + " " + num(w.means[m]); }).join(", "));
			tb.appendChild(tr);
		});
		renderCharts();
	}
	function loadWindows() {
		return Promise.all([R.get("/api/production/windows"), R.get("/api/session"), R.get("/api/testsets")]).then(function (b) {
			st.windows = b[0];
			st.traceUrl = b[1].trace_url || null;
			st.sets = (b[2].testsets || []).map(function (s) { return { name: s.name, latest: s.latest }; });
			renderWindows();
			fillSets();
		});
	}
	function fillSets() {
		var sel = $("p-add").testset, keep = sel.value;
		sel.textContent = "";
		st.sets.forEach(function (s) {
			var o = el("option", s.name + " (v" + s.latest + ")");
			o.value = s.name;
			sel.appendChild(o);
		});
		if (keep) sel.value = keep;
		$("p-add-note").textContent = st.sets.length ? "" : t("p_no_sets");
	}
	function renderRecords() {
		var b = st.recs, tb = $("p-records").querySelector("tbody");
		tb.textContent = "";
		if (!b) return;
		$("p-window-title").textContent = t("p_worst", { n: b.window.id });
		$("p-records-count").textContent = t("p_records_of", { n: b.records.length, total: b.total });
		b.records.forEach(function (r) {
			var tr = el("tr"), rec = r.record || {}, href = traceLink(r.trace_id), c, btn;
			tr.setAttribute("data-seq", String(r.seq));
			td(tr, "p_c_seq", r.seq);
			td(tr, "p_c_score", num(r.score), "num");
			td(tr, "p_c_question", rec.question || "", "text");
			td(tr, "p_c_answer", rec.answer || "", "text");
			c = td(tr, "p_c_trace", "");
			if (href) {
				var a = el("a", t("p_view"));
				a.href = href;
				a.rel = "noopener noreferrer";
				a.target = "_blank";
				a.className = "trace-link";
				a.title = r.trace_id;
				c.appendChild(a);
			} else {
				c.appendChild(el("span", r.trace_id || t("p_no_link"), "muted"));
			}
			btn = el("button", t("p_add"));
			btn.type = "button";
			btn.className = "p-add-one";
			btn.addEventListener("click", function () { addCase(b.window.id, r.seq); });
			td(tr, "p_c_add", "").appendChild(btn);
			tb.appendChild(tr);
		});
	}
	function fillMetrics() {
		var sel = $("p-metric"), w = st.recs ? st.recs.window : null, keep = st.metric;
		sel.textContent = "";
		var o = el("option", t("p_lowest"));
		o.value = "";
		sel.appendChild(o);
		Object.keys((w && w.means) || {}).sort().forEach(function (m) {
			var x = el("option", m);
			x.value = m;
			sel.appendChild(x);
		});
		sel.value = keep;
	}
	function openWindow(id) {
		R.tab("production");
		$("p-window").hidden = false;
		st.open = id;
		var q = "/api/production/windows/" + encodeURIComponent(id) + "/records?limit=20" +
			(st.metric ? "&metric=" + encodeURIComponent(st.metric) : "");
		return (st.windows ? Promise.resolve() : loadWindows()).then(function () { return R.get(q); }).then(function (b) {
			st.recs = b;
			fillMetrics();
			renderRecords();
			pdrawn();
		}).catch(function (e) { R.showError(e.message); pdrawn(); });
	}
	var post = R.post;
	function addCase(win, seq) {
		var f = $("p-add"), name = f.testset.value, note = $("p-add-note"), set = null;
		st.sets.forEach(function (s) { if (s.name === name) set = s; });
		if (!set) { note.textContent = t("p_no_sets"); return; }
		var body = { window: win, seq: seq, testset: name, base_version: set.latest };
		if (f.who.value.trim()) body.who = f.who.value.trim();
		post("/api/production/add", body).then(function (b) {
			set.latest = b.version;
			fillSets();
			note.textContent = t("p_added", { name: name, version: b.version });
			note.className = "note ok";
			pdrawn();
		}).catch(function (e) {
			note.textContent = e.message;
			note.className = "note bad";
			pdrawn();
		});
	}
	function show() {
		R.tab("production");
		$("p-window").hidden = true;
		st.open = null;
		loadWindows().then(pdrawn).catch(function (e) { R.showError(e.message); pdrawn(); });
	}
	R.onLang(function () {
		renderWindows();
		if (st.sets) fillSets();
		if (st.recs) { fillMetrics(); renderRecords(); }
	});
	document.addEventListener("DOMContentLoaded", function () {
		$("tab-production").addEventListener("click", function () { R.here("production"); show(); });
		/* #/production, #/production/ID: a link, a reload, a bookmark, Back */
		R.onRoute("production", function (a) {
			if (a[0]) openWindow(a[0]);
			else show();
		});
		$("p-metric").addEventListener("change", function () {
			st.metric = $("p-metric").value;
			if (st.open) openWindow(st.open);
		});
		$("p-add").addEventListener("submit", function (ev) { ev.preventDefault(); });
	});
})();
