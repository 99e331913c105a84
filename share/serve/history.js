/* history.js - rag-serve's History tab, its trends and a comparison of two runs, in English and
 * Chinese: for the runs the filters let through, each metric's mean per run (and the share of
 * records passed) as small line charts drawn here in SVG from /api/trends, the y axis fitted to
 * the values, the dates thinned so that none overlaps; two runs (picked here, or "compare with
 * the previous run" from an opened run) compared from /api/compare. Every text of the data goes
 * in through textContent, never as HTML. */
"use strict";
(function () {
	var R = window.ragServe, t = R.t, el = R.el, td = R.td;
	var SVG = "http://www.w3.org/2000/svg";
	R.words({
		en: {
			h_trends: "Trends", h_trend_of: "{n} runs, oldest to newest", h_trend_some: "the newest {n} of {total} runs",
			h_one: "One run: {run}", h_pass_rate: "pass rate", h_none: "no runs to draw",
			h_rate_of: "pass rate: the records that passed the run's gate of those with a verdict (without errors or nulls); the newest {p}, {a} of {b}",
			h_compare: "Compare two runs", h_base: "Base run", h_new: "New run", h_compare_btn: "Compare",
			h_prev: "Compare with the previous run", h_no_prev: "no earlier run of this test set",
			h_c_metric: "Metric", h_c_base: "Base", h_c_new: "New", h_c_delta: "Difference", h_c_id: "Id",
			h_worse: "Worse in the new run", h_better: "Better in the new run", h_nothing: "none",
			h_changes: "{regressed} regressed ({lost} lost their score), {improved} improved, {same} unchanged, {added} added, {removed} removed",
			h_def: "regressed: fell by more than {tol} on some metric or lost its score (scored in the base run, an error or a null now); improved: rose by more than {tol} or gained its score, none regressed; paired by id over {paired} records; means over the pairs scored in both runs",
			h_lost: "lost",
			h_vs: "{base} → {new}", h_testset: "Test set", h_same: "pick two different runs",
			h_thr: "the gate's threshold", h_thr_note: "dashed: the gate's threshold each run was judged by",
			h_c_ci: "{c}% interval", h_c_change: "Change", ch_regression: "regression", ch_improvement: "improvement",
			ch_none: "none", h_pairing: "Paired by id: {n} pairs", h_c_rate: "pass rate",
			h_rate_cell: "{p} ({of} with a verdict)"
		},
		zh: {
			h_trends: "趋势", h_trend_of: "{n} 次运行，从早到晚", h_trend_some: "最近 {n} 次运行（共 {total} 次）",
			h_one: "仅一次运行：{run}", h_pass_rate: "通过率", h_none: "没有可绘制的运行",
			h_rate_of: "通过率：有结论（无错误或空值）的记录中通过该运行门禁的比例；最近一次 {p}，{b} 条中 {a} 条",
			h_compare: "对比两次运行", h_base: "基准运行", h_new: "新运行", h_compare_btn: "对比",
			h_prev: "与上一次运行对比", h_no_prev: "该测试集没有更早的运行",
			h_c_metric: "指标", h_c_base: "基准", h_c_new: "新", h_c_delta: "差值", h_c_id: "编号",
			h_worse: "新运行中变差", h_better: "新运行中变好", h_nothing: "无",
			h_changes: "变差 {regressed}（其中 {lost} 条丢失分数），变好 {improved}，不变 {same}，新增 {added}，移除 {removed}",
			h_def: "变差：某个指标下降超过 {tol}，或丢失分数（基准运行有分数，现在为错误或空值）；变好：上升超过 {tol} 或新得分数，且无变差；按编号配对 {paired} 条记录；均值取两次运行都有分数的配对",
			h_lost: "丢失",
			h_vs: "{base} → {new}", h_testset: "测试集", h_same: "请选择两次不同的运行",
			h_thr: "门禁阈值", h_thr_note: "虚线：每次运行所用的门禁阈值",
			h_c_ci: "{c}% 置信区间", h_c_change: "变化", ch_regression: "退步", ch_improvement: "进步",
			ch_none: "无显著变化", h_pairing: "按编号配对：{n} 对", h_c_rate: "通过率",
			h_rate_cell: "{p}（{of} 条有结论）"
		}
	});
	var trends = null, cmp = null, hloads = 0;
	function $(id) { return document.getElementById(id); }
	/* for the tests: a count of History's replies drawn, on <body> (apart from serve.js's) */
	function hdrawn() { document.body.setAttribute("data-hist-loads", String(++hloads)); }
	function num(x) { return typeof x === "number" ? x.toFixed(3) : "–"; }
	function signed(x) { return typeof x === "number" ? (x > 0 ? "+" : "") + x.toFixed(3) : "–"; }
	function svg(tag, attrs, text) {
		var e = document.createElementNS(SVG, tag);
		Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
		if (text !== undefined) e.textContent = String(text);
		return e;
	}
	function query() {
		var f = $("filters"), q = [];
		["label", "commit", "testset", "since", "until"].forEach(function (k) {
			if (f[k] && f[k].value) q.push(k + "=" + encodeURIComponent(f[k].value));
		});
		return q.join("&");
	}
	/* ---------------------------------------------------------------- trends */
	var trendsAsked = 0;
	function loadTrends() {
		var mine = ++trendsAsked;
		return R.get("/api/trends?" + query()).then(function (b) {
			if (mine !== trendsAsked) return;   /* a later filter's reply is the one to draw */
			trends = b;
			renderTrends();
			fillPicks();
			hdrawn();
		}).catch(function (e) { R.showError(e.message); hdrawn(); });
	}
	/* a date as the x axis writes it: the day, or the day and time when runs share a day */
	function day(s) { return String(s || "").slice(0, 10); }
	/* One chart: values (null: the run has none) over the runs, a y axis that fits them. */
	function chart(title, values, runs, thr) {
		var W = 360, H = 150, L = 44, Rm = 12, Tp = 22, B = 26, pw = W - L - Rm, ph = H - Tp - B;
		var s = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "trend", role: "img" });
		var nums = values.filter(function (v) { return typeof v === "number"; });
		/* the y axis spans the thresholds too, so that the line is inside the chart */
		var tnums = (thr || []).filter(function (v) { return typeof v === "number"; });
		var lo = Math.min.apply(null, nums.concat(tnums)), hi = Math.max.apply(null, nums.concat(tnums)), n = values.length;
		var pad = hi > lo ? (hi - lo) * 0.12 : Math.max(Math.abs(hi) * 0.05, 0.01);
		var y0 = lo - pad, y1 = hi + pad, sameDay, every, pts = [], i;
		s.setAttribute("aria-label", title);
		s.setAttribute("data-metric", title);
		s.appendChild(svg("text", { x: 2, y: 14, "class": "t-title" }, title));
		function X(i) { return L + (n === 1 ? pw / 2 : pw * i / (n - 1)); }
		function Y(v) { return Tp + ph - (v - y0) / (y1 - y0) * ph; }
		/* the y axis: its lowest, middle and highest values, as many decimals as the range needs */
		var dec = hi - lo >= 0.1 || hi === lo ? 2 : 3;
		[lo, (lo + hi) / 2, hi].forEach(function (v, k) {
			if (k === 1 && hi === lo) return;
			s.appendChild(svg("line", { x1: L, x2: W - Rm, y1: Y(v), y2: Y(v), "class": "t-grid" }));
			s.appendChild(svg("text", { x: L - 4, y: Y(v) + 3, "class": "t-y" }, v.toFixed(dec)));
		});
		/* the x axis: a date at most every 90 units (a label is at most 60 wide, and the first and
		 * last are anchored at their ends), so that none overlaps another; as precise as the runs'
		 * span needs (the time of day within one day, the seconds within one minute), and a label
		 * the same as the one before it left out */
		sameDay = day(runs[0].started) === day(runs[n - 1].started);
		var first = String(runs[0].started || ""), lastS = String(runs[n - 1].started || "");
		function xlabel(s) {
			s = String(s || "");
			if (first.slice(0, 16) === lastS.slice(0, 16)) return s.slice(11, 19);
			if (sameDay) return s.slice(11, 16);
			return first.slice(0, 4) === lastS.slice(0, 4) ? s.slice(5, 10) : s.slice(0, 10);
		}
		every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(pw / 90))));
		var prevLabel = null;
		for (i = 0; i < n; i += every) {
			var lb = n === 1 ? day(runs[i].started) : xlabel(runs[i].started);
			if (lb === prevLabel) continue;
			prevLabel = lb;
			s.appendChild(svg("text", { x: X(i), y: H - 8, "class": "t-x",
				"text-anchor": n === 1 ? "middle" : i === 0 ? "start" : i + every >= n && X(i) > W - Rm - 30 ? "end" : "middle" },
				lb));
		}
		/* the gate's threshold each run was judged by (its stored verdict's), dashed: a step where
		 * it changed, a level line where it did not */
		var tp = [];
		for (i = 0; i < n; i++) if (thr && typeof thr[i] === "number") tp.push([X(i), Y(thr[i]), i]);
		if (tp.length) {
			var tl = svg(tp.length > 1 ? "polyline" : "line", tp.length > 1 ?
				{ points: tp.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "), "class": "t-thr" } :
				{ x1: L, x2: W - Rm, y1: tp[0][1].toFixed(1), y2: tp[0][1].toFixed(1), "class": "t-thr" });
			tl.setAttribute("data-threshold", String(thr[tp[tp.length - 1][2]]));
			tl.setAttribute("data-metric", title);
			tl.appendChild(svg("title", {}, t("h_thr") + " " + num(thr[tp[tp.length - 1][2]])));
			s.appendChild(tl);
		}
		for (i = 0; i < n; i++) if (typeof values[i] === "number") pts.push([X(i), Y(values[i]), i]);
		if (pts.length > 1)
			s.appendChild(svg("polyline", { points: pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "),
				"class": "t-line" }));
		pts.forEach(function (p) {
			var c = svg("circle", { cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 3.5, "class": "t-pt" });
			c.appendChild(svg("title", {}, runs[p[2]].run + " · " + runs[p[2]].started + " · " + num(values[p[2]])));
			s.appendChild(c);
		});
		/* the newest value written beside its point (the only one's, for a single run) */
		if (pts.length) {
			var last = pts[pts.length - 1];
			s.appendChild(svg("text", { x: last[0] - 6, y: last[1] - 7, "class": "t-val", "text-anchor": pts.length === 1 && n === 1 ? "middle" : "end" },
				num(values[last[2]])));
		}
		return s;
	}
	/* a single run: one chart, a point per metric with its value written */
	function single(names, run) {
		var W = 360, rowH = 22, H = 12 + rowH * names.length, L = 150, Rm = 50, pw = W - L - Rm;
		var s = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "trend single", role: "img" });
		s.setAttribute("aria-label", t("h_one", { run: run.run }));
		names.forEach(function (m, k) {
			var v = m === "\u0000pass" ? run.pass_rate : (run.means || {})[m], y = 12 + rowH * k + 6;
			if (typeof v !== "number") return;
			var lab = svg("text", { x: 2, y: y + 4, "class": "t-y s-name" }, m === "\u0000pass" ? t("h_pass_rate") : m);
			s.appendChild(lab);
			s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y, y2: y, "class": "t-grid" }));
			var x = L + pw * Math.max(0, Math.min(1, v)), th = run.thresholds || {};
			/* the gate's threshold the run was judged by: a dashed tick across the metric's line */
			var tv = m === "\u0000pass" ? th.min_pass_rate : (th.mean || {})[m];
			if (typeof tv === "number") {
				var tx = (L + pw * Math.max(0, Math.min(1, tv))).toFixed(1);
				var tl = svg("line", { x1: tx, x2: tx, y1: y - 8, y2: y + 8, "class": "t-thr" });
				tl.setAttribute("data-threshold", String(tv));
				tl.setAttribute("data-metric", m === "\u0000pass" ? t("h_pass_rate") : m);
				tl.appendChild(svg("title", {}, t("h_thr") + " " + num(tv)));
				s.appendChild(tl);
			}
			s.appendChild(svg("circle", { cx: x.toFixed(1), cy: y, r: 4, "class": "t-pt" }));
			s.appendChild(svg("text", { x: L + pw + 6, y: y + 4, "class": "t-val" }, num(v)));
		});
		return s;
	}
	function renderTrends() {
		var box = $("trends"), note = $("trends-note");
		if (!trends || !box) return;
		box.textContent = "";
		var runs = trends.runs, names = trends.metrics.slice();
		var hasPass = trends.pass_rate.some(function (v) { return typeof v === "number"; });
		if (!runs.length) { note.textContent = t("h_none"); return; }
		note.textContent = trends.total > trends.shown ? t("h_trend_some", { n: trends.shown, total: trends.total }) :
			runs.length === 1 ? t("h_one", { run: runs[0].run + " · " + runs[0].started }) : t("h_trend_of", { n: runs.length });
		/* the pass rate's denominator named: the one definition, the gate's (rag_verdict_pass_rate) */
		var last = runs.length - 1, of = (trends.pass_rate_of || [])[last];
		if (hasPass && typeof trends.pass_rate[last] === "number" && typeof of === "number")
			note.textContent += " · " + t("h_rate_of", { p: (trends.pass_rate[last] * 100).toFixed(1) + "%",
				a: Math.round(trends.pass_rate[last] * of), b: of });
		if (runs.length === 1) {
			box.appendChild(single(hasPass ? ["\u0000pass"].concat(names) : names, runs[0]));
			if (box.querySelector(".t-thr")) note.textContent += " · " + t("h_thr_note");
			return;
		}
		function thr(f) { return runs.map(function (r) { var v = r.thresholds ? f(r.thresholds) : null; return typeof v === "number" ? v : null; }); }
		if (hasPass) box.appendChild(chart(t("h_pass_rate"), trends.pass_rate, runs, thr(function (x) { return x.min_pass_rate; })));
		names.forEach(function (m) {
			if (trends.series[m].some(function (v) { return typeof v === "number"; }))
				box.appendChild(chart(m, trends.series[m], runs, thr(function (x) { return (x.mean || {})[m]; })));
		});
		if (box.querySelector(".t-thr")) note.textContent += " · " + t("h_thr_note");
	}
	/* ---------------------------------------------------------------- compare */
	function option(r) {
		var o = el("option", r.run + " · " + String(r.started || "").slice(0, 16).replace("T", " ") + (r.label ? " · " + r.label : ""));
		o.value = r.run;
		return o;
	}
	/* the two pickers: the trend's runs, newest first; by default the newest against the one before */
	function fillPicks() {
		var f = $("compare-form"), keep = [f.base.value, f["new"].value];
		var runs = trends ? trends.runs.slice().reverse() : [];
		[f.base, f["new"]].forEach(function (s, k) {
			s.textContent = "";
			runs.forEach(function (r) { s.appendChild(option(r)); });
			if (keep[k] && !runs.some(function (r) { return r.run === keep[k]; })) s.appendChild(option({ run: keep[k] }));
		});
		f.base.value = keep[0] || (runs[1] || runs[0] || {}).run || "";
		f["new"].value = keep[1] || (runs[0] || {}).run || "";
	}
	function compare(base, nw) {
		$("compare-note").textContent = "";
		if (base === nw) { $("compare-note").textContent = t("h_same"); hdrawn(); return Promise.resolve(); }
		return R.get("/api/compare?base=" + encodeURIComponent(base) + "&new=" + encodeURIComponent(nw)).then(function (b) {
			cmp = b;
			R.here("compare", [base, nw]);
			renderCompare();
			hdrawn();
		}).catch(function (e) { $("compare-note").textContent = t("error") + e.message; hdrawn(); });
	}
	/* a record of a run: a link to its view by its id (#/run/RUN/id/RID: the pairs are by id) */
	function recLink(c, run, id, label) {
		var a = el("a", label);
		a.href = R.link("run", [run, "id", id]);
		a.className = "rec-link";
		c.textContent = "";
		c.appendChild(a);
		return a;
	}
	function pct(x) { return typeof x === "number" ? (x * 100).toFixed(1) + "%" : "–"; }
	function deltaCell(tr, v) {
		td(tr, "h_c_delta", signed(v), "num" + (typeof v === "number" && v < 0 ? " fail" : typeof v === "number" && v > 0 ? " pass" : ""));
	}
	function changesTable(id, list) {
		var tb = $(id).tBodies[0];
		tb.textContent = "";
		list.forEach(function (c) {
			var tr = el("tr");
			recLink(td(tr, "h_c_id", ""), cmp["new"].run, c.id, c.id);
			td(tr, "h_c_metric", c.metric);
			td(tr, "h_c_base", num(c.base), "num");
			td(tr, "h_c_new", c.lost ? t("h_lost") : num(c["new"]), "num" + (c.lost ? " fail" : ""));
			deltaCell(tr, c.delta);
			tb.appendChild(tr);
		});
		$(id).hidden = !list.length;
		$(id + "-none").hidden = !!list.length;
	}
	function renderCompare() {
		var out = $("compare-out"), tb = $("compare-means").tBodies[0];
		if (!cmp) return;
		out.hidden = false;
		$("compare-title").textContent = t("h_vs", { base: cmp.base.run + (cmp.base.label ? " (" + cmp.base.label + ")" : ""),
			"new": cmp["new"].run + (cmp["new"].label ? " (" + cmp["new"].label + ")" : "") });
		$("compare-changes").textContent = t("h_changes", cmp.changes);
		/* the library's definition (compare.c), as rag-gate -b and rag-store diff count */
		$("compare-def").textContent = t("h_def", { tol: String(cmp.tolerance), paired: String(cmp.paired) });
		$("compare-pairing").textContent = t("h_pairing", { n: cmp.paired });
		$("compare-ci-h").textContent = t("h_c_ci", { c: typeof cmp.confidence === "number" ? Math.round(cmp.confidence * 100) : 95 });
		tb.textContent = "";
		/* every number from the server (compare.c, the runs' verdicts): none worked out here */
		cmp.metrics.forEach(function (m) {
			var tr = el("tr");
			td(tr, "h_c_metric", m.metric);
			td(tr, "h_c_base", num(m.base), "num");
			td(tr, "h_c_new", num(m["new"]), "num");
			deltaCell(tr, m.delta);
			td(tr, "h_c_ci_short", typeof m.ci_low === "number" ? "[" + signed(m.ci_low) + ", " + signed(m.ci_high) + "]" : "–", "num");
			td(tr, "h_c_change", m.change ? t("ch_" + m.change) : "–", m.change === "regression" ? "fail" : m.change === "improvement" ? "pass" : "");
			tb.appendChild(tr);
		});
		var pr = cmp.pass_rate;
		if (pr && (typeof pr.base === "number" || typeof pr["new"] === "number")) {
			var tr = el("tr", null, "rate-row");
			td(tr, "h_c_metric", t("h_c_rate"));
			td(tr, "h_c_base", typeof pr.base === "number" ? t("h_rate_cell", { p: pct(pr.base), of: pr.base_of }) : "–", "num");
			td(tr, "h_c_new", typeof pr["new"] === "number" ? t("h_rate_cell", { p: pct(pr["new"]), of: pr.new_of }) : "–", "num");
			td(tr, "h_c_delta", typeof pr.delta === "number" ? t("h_pp", { d: (pr.delta > 0 ? "+" : "") + (pr.delta * 100).toFixed(1) }) : "–",
				"num" + (pr.delta < 0 ? " fail" : pr.delta > 0 ? " pass" : ""));
			td(tr, "h_c_ci_short", "");
			td(tr, "h_c_change", "");
			tb.appendChild(tr);
		}
		changesTable("compare-worse", cmp.worse);
		changesTable("compare-better", cmp.better);
	}
	/* from an opened run: the run before it (of its test set when it has one) as the base */
	function comparePrevious() {
		var s = R.summary && R.summary(), q;
		if (!s) return Promise.resolve();
		q = "limit=50&until=" + encodeURIComponent(s.started) + (s.testset ? "&testset=" + encodeURIComponent(s.testset) : "");
		return R.get("/api/runs?" + q).then(function (b) {
			var ids = b.runs.map(function (r) { return r.run; }), at = ids.indexOf(s.run);
			var prev = at >= 0 ? ids[at + 1] : ids.filter(function (x) { return x !== s.run; })[0];
			R.tab("history");
			if (!prev) { $("compare-note").textContent = t("h_no_prev"); hdrawn(); return; }
			var f = $("compare-form");
			[[f.base, prev], [f["new"], s.run]].forEach(function (p) {
				if (![].some.call(p[0].options, function (o) { return o.value === p[1]; })) p[0].appendChild(option({ run: p[1] }));
				p[0].value = p[1];
			});
			$("compare").scrollIntoView();
			return compare(prev, s.run);
		}).catch(function (e) { R.showError(e.message); hdrawn(); });
	}
	R.words({ en: { h_c_ci_short: "Interval", h_pp: "{d} pp" }, zh: { h_c_ci_short: "置信区间", h_pp: "{d} 个百分点" } });
	R.onLang(function () { renderTrends(); renderCompare(); });
	/* #/compare/BASE/NEW: the two runs compared, from a link, a bookmark or a reload */
	R.onRoute("compare", function (a) {
		var f = $("compare-form");
		if (!a[0] || !a[1]) { R.tab("history"); return; }
		R.tab("history");
		[[f.base, a[0]], [f["new"], a[1]]].forEach(function (p) {
			if (![].some.call(p[0].options, function (o) { return o.value === p[1]; })) p[0].appendChild(option({ run: p[1] }));
			p[0].value = p[1];
		});
		compare(a[0], a[1]).then(function () { if ($("compare").scrollIntoView) $("compare").scrollIntoView(); });
	});
	R.onRuns(function () { loadTrends(); });
	var FILTERS = ["label", "commit", "testset", "since", "until"];
	document.addEventListener("DOMContentLoaded", function () {
		/* the filters in the address (#/history?label=...), a filtered History to reload or send */
		$("filters").addEventListener("submit", function () {
			var f = $("filters"), p = {};
			FILTERS.forEach(function (k) { p[k] = f[k].value; });
			R.here("history", [], p);
			loadTrends();
		});
		R.onRoute("history", function (a, p) {
			var f = $("filters"), changed = false;
			R.tab("history");
			FILTERS.forEach(function (k) {
				var v = p[k] || "";
				if (f[k].value !== v) { f[k].value = v; changed = true; }
			});
			if (changed) f.requestSubmit();
		});
		$("compare-form").addEventListener("submit", function (ev) {
			ev.preventDefault();
			compare(ev.target.base.value, ev.target["new"].value);
		});
		$("compare-prev").addEventListener("click", comparePrevious);
		loadTrends();
	});
})();
