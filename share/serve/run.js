/* run.js - rag-serve's Run evaluation tab: the form (a profile, a test set version of the store,
 * the service, the judge, the settings sent to the service, the metrics and thresholds; a
 * profile chosen fills the fields, which stay editable, and the start names it), the start
 * (POST /api/evals: rag-serve runs rag-eval), its progress asked for every second while it runs
 * (records done of the total, with errors, the time left), cancel, resume, and the run opened
 * once it is in the store. Every text of the data goes in through textContent. */
"use strict";
(function () {
	var R = window.ragServe;
	R.words({
		en: {
			evals: "Run evaluation", e_what: "Test set", e_testset: "Test set", e_version: "Version",
			e_newest: "newest", e_label: "Label", e_service: "Service under test", e_service_url: "Service URL",
			e_threshold: "Similarity threshold", e_system: "Other settings (key=value, a line each)",
			e_judge: "Judge", e_judge_url: "Judge endpoint (none: the offline judge)", e_judge_model: "Judge model",
			e_metrics_legend: "Metrics and thresholds", e_metrics: "Metrics (comma-separated)",
			e_thresholds: "Thresholds (metric=min, comma-separated)", e_start: "Start", e_cancel: "Cancel",
			e_resume: "Resume", e_open: "Open the run", e_key_yes: "The judge's API key is rag-serve's own (from its environment or configuration).",
			e_key_no: "rag-serve has no judge API key: an endpoint that needs one will refuse.",
			e_title: "Run {id}", e_count: "{done} of {total} records · {errors} with errors",
			e_eta: " · about {eta} left", e_bad_line: "not key=value: ", e_none: "no test set in the store",
			s_running: "running", s_cancelling: "cancelling", s_done: "done", s_cancelled: "cancelled",
			s_failed: "failed", e_passed: " · gate passed", e_failed: " · gate failed",
			e_profile: "Profile", e_no_profile: "none: the fields below",
			e_key_profile: "The judge's API key is the profile's own (from rag-serve's environment).",
			e_withheld: "Credential not sent: {credential} was not sent to {url}, which is neither the endpoint it was configured for nor in {allow}.",
			e_estimating: " · estimating the time left", u_h: "{n} h", u_min: "{n} min", u_s: "{n} s",
			e_result: "Result", e_rate: "Pass rate", e_rate_of: "{p} ({a} of {b} records with a verdict)",
			e_exit: "Exit status", e_exit_of: "{s}: {r}", e_c_metric: "Metric", e_c_mean: "Mean",
			e_log: "rag-eval's messages"
		},
		zh: {
			evals: "运行评估", e_what: "测试集", e_testset: "测试集", e_version: "版本", e_newest: "最新",
			e_label: "标签", e_service: "被测服务", e_service_url: "服务地址", e_threshold: "相似度阈值",
			e_system: "其他设置（key=value，每行一个）", e_judge: "评审模型", e_judge_url: "评审接口（留空：离线评审）",
			e_judge_model: "评审模型名", e_metrics_legend: "指标与阈值", e_metrics: "指标（逗号分隔）",
			e_thresholds: "阈值（指标=最低值，逗号分隔）", e_start: "开始运行", e_cancel: "取消", e_resume: "继续",
			e_open: "打开运行结果", e_key_yes: "评审 API 密钥取自 rag-serve 自身的环境或配置。",
			e_key_no: "rag-serve 没有评审 API 密钥：需要密钥的接口会拒绝。",
			e_title: "运行 {id}", e_count: "{done} / {total} 条记录 · {errors} 条出错",
			e_eta: " · 约剩 {eta}", e_bad_line: "不是 key=value：", e_none: "仓库中没有测试集",
			s_running: "运行中", s_cancelling: "正在取消", s_done: "已完成", s_cancelled: "已取消",
			s_failed: "失败", e_passed: " · 门禁通过", e_failed: " · 门禁未通过",
			e_profile: "配置方案", e_no_profile: "无：手动填写下方字段",
			e_key_profile: "评审 API 密钥取自该配置方案（来自 rag-serve 的环境）。",
			e_withheld: "凭据未发送：{credential} 没有发送到 {url}，它既不是该凭据配置的端点，也不在 {allow} 中。",
			e_estimating: " · 正在估算剩余时间", u_h: "{n} 小时", u_min: "{n} 分钟", u_s: "{n} 秒",
			e_result: "结果", e_rate: "通过率", e_rate_of: "{p}（{b} 条有结论的记录中 {a} 条通过）",
			e_exit: "退出状态", e_exit_of: "{s}：{r}", e_c_metric: "指标", e_c_mean: "均值",
			e_log: "rag-eval 的输出"
		}
	});
	var t = R.t, sets = [], defaults = null, profiles = [], cur = null, timer = null;
	function $(id) { return document.getElementById(id); }
	function form() { return $("eval-form"); }
	function duration(s) {
		if (s >= 3600) return t("u_h", { n: Math.floor(s / 3600) }) + " " + t("u_min", { n: Math.round((s % 3600) / 60) });
		if (s >= 60) return t("u_min", { n: Math.floor(s / 60) }) + " " + t("u_s", { n: Math.round(s % 60) });
		return t("u_s", { n: Math.round(s) });
	}
	/* ---------------------------------------------------------------- the form */
	function fillVersions() {
		var f = form(), sel = f.version, set = sets.filter(function (x) { return x.name === f.testset.value; })[0];
		sel.textContent = "";
		var o = R.el("option", t("e_newest"));
		o.value = "0";
		sel.appendChild(o);
		(set ? set.versions : []).slice().reverse().forEach(function (v) {
			var o = R.el("option", v.version + " (" + v.n + ")");
			o.value = String(v.version);
			sel.appendChild(o);
		});
	}
	function fillSets() {
		var sel = form().testset, keep = sel.value;
		sel.textContent = "";
		sets.forEach(function (s) {
			var o = R.el("option", s.name);
			o.value = s.name;
			sel.appendChild(o);
		});
		if (!sets.length) sel.appendChild(R.el("option", t("e_none")));
		if (keep) sel.value = keep;
		fillVersions();
	}
	/* the chosen profile (GET /api/evals/profiles: what the form shows of it), or null */
	function profile() {
		var name = form().profile.value;
		return profiles.filter(function (p) { return p.name === name && !p.error; })[0] || null;
	}
	function fillProfiles() {
		var sel = form().profile, keep = sel.value, o = R.el("option", t("e_no_profile"));
		sel.textContent = "";
		o.value = "";
		sel.appendChild(o);
		profiles.forEach(function (p) {
			var o = R.el("option", p.error ? p.name + " (" + p.error + ")" : p.name);
			o.value = p.name;
			o.disabled = !!p.error;
			sel.appendChild(o);
		});
		sel.value = keep;
		if (sel.value !== keep) sel.value = "";
	}
	/* the fields from d: rag-serve's defaults, or a profile's (every field: what it leaves out
	 * is empty) */
	function fillDefaults(d, all) {
		var f = form(), sys, th;
		d = d || defaults || {};
		sys = Object.assign({}, d.system || {});
		th = d.thresholds || {};
		["service_url", "judge_base_url", "judge_model"].forEach(function (k) {
			if (d[k] || all) f[k].value = d[k] || "";
		});
		f.top_k.value = sys.top_k !== undefined ? sys.top_k : all ? "" : f.top_k.value;
		f.similarity_threshold.value = sys.similarity_threshold !== undefined ? sys.similarity_threshold
			: all ? "" : f.similarity_threshold.value;
		delete sys.top_k;
		delete sys.similarity_threshold;
		f.system.value = Object.keys(sys).map(function (k) { return k + "=" + sys[k]; }).join("\n");
		f.metrics.value = (d.metrics || []).join(",");
		f.thresholds.value = Object.keys(th).map(function (k) { return k + "=" + th[k]; }).join(", ");
		renderKey();
	}
	function renderKey() {
		var p = profile();
		if (p && p.own_key) $("eval-key").textContent = t("e_key_profile");
		else if (defaults) $("eval-key").textContent = t(defaults.judge_key ? "e_key_yes" : "e_key_no");
	}
	function load() {
		return Promise.all([R.get("/api/testsets"), R.get("/api/evals/form"), R.get("/api/evals/profiles")]).then(function (r) {
			sets = r[0].testsets || [];
			defaults = r[1].defaults;
			profiles = r[2].profiles || [];
			fillSets();
			fillProfiles();
			fillDefaults();
			R.drawn();
		}).catch(function (e) { R.showError(e.message); R.drawn(); });
	}
	/* "key=value" -> a number, true, false or the text */
	function value(v) {
		if (v === "true") return true;
		if (v === "false") return false;
		if (v !== "" && !isNaN(Number(v))) return Number(v);
		return v;
	}
	function body() {
		var f = form(), sys = {}, th = {}, b = { testset: f.testset.value, version: Number(f.version.value) || 0 },
			p = profile();
		if (p) b.profile = p.name;
		["service_url", "judge_base_url", "judge_model", "label", "metrics"].forEach(function (k) {
			/* a field left as the profile has it is the profile's (its ${VAR}s rag-eval's to expand) */
			if (f[k].value.trim() && !(p && p[k] && f[k].value.trim() === p[k])) b[k] = f[k].value.trim();
		});
		if (f.top_k.value !== "") sys.top_k = Number(f.top_k.value);
		if (f.similarity_threshold.value !== "") sys.similarity_threshold = Number(f.similarity_threshold.value);
		f.system.value.split("\n").forEach(function (l) {
			var i = l.indexOf("=");
			if (!l.trim()) return;
			if (i < 1) throw new Error(t("e_bad_line") + l);
			sys[l.slice(0, i).trim()] = value(l.slice(i + 1).trim());
		});
		f.thresholds.value.split(/[,\n]/).forEach(function (l) {
			var i = l.indexOf("=");
			if (!l.trim()) return;
			if (i < 1) throw new Error(t("e_bad_line") + l);
			th[l.slice(0, i).trim()] = Number(l.slice(i + 1).trim());
		});
		b.system = sys;
		b.thresholds = th;
		return b;
	}
	var post = R.post;
	/* ---------------------------------------------------------------- a run's progress */
	function render() {
		var s = cur, st = $("eval-state"), ended = s && !/^(running|cancelling)$/.test(s.state);
		if (!s) return;
		$("eval-status").hidden = false;
		$("eval-title").textContent = t("e_title", { id: s.id });
		st.textContent = t("s_" + s.state);
		st.setAttribute("data-state", s.state);
		st.className = "state-" + s.state;
		/* the time left: the server's, once records after the first are done; "estimating" before */
		$("eval-count").textContent = t("e_count", { done: s.done || 0, total: s.total, errors: s.errors || 0 }) +
			(s.eta_s ? t("e_eta", { eta: duration(s.eta_s) }) : ended ? "" : t("e_estimating")) +
			(s.passed === true ? t("e_passed") : s.passed === false ? t("e_failed") : "");
		$("eval-progress").max = Math.max(1, s.total);
		$("eval-progress").value = s.done || 0;
		/* the credentials the run went without: the form named a URL they may not go to */
		var w = $("eval-withheld");
		w.textContent = "";
		(s.withheld || []).forEach(function (x) {
			w.appendChild(R.el("li", t("e_withheld", { credential: x.credential, url: x.url, allow: x.allow })));
		});
		w.hidden = !(s.withheld && s.withheld.length);
		$("eval-cancel").hidden = ended;
		$("eval-resume").hidden = !(s.state === "cancelled" || s.state === "failed");
		$("eval-open").hidden = !s.run;
		renderResult(s);
		/* rag-eval's own messages (in English, as it wrote them): open when the run failed, folded
		 * under the result when it ended with one */
		$("eval-log-box").hidden = !s.log;
		if (s.log && $("eval-log").textContent !== s.log) $("eval-log-box").open = !s.run;
		$("eval-log").textContent = s.log || "";
		$("eval-start").disabled = !ended;
	}
	/* the ended run's verdict and means as the store has them (serverun.c: never worked out here) */
	function renderResult(s) {
		var box = $("eval-result"), dl = $("eval-result-dl"), tb = $("eval-means").tBodies[0], v = s.verdict;
		box.hidden = !s.run;
		dl.textContent = "";
		tb.textContent = "";
		if (!s.run) return;
		if (v && typeof v.pass_rate === "number") {
			dl.appendChild(R.el("dt", t("e_rate")));
			dl.appendChild(R.el("dd", t("e_rate_of", { p: (v.pass_rate * 100).toFixed(1) + "%", a: v.passed, b: v.with_verdict }),
				v.decision === "pass" ? "pass" : v.decision === "fail" ? "fail" : ""));
		}
		if (v && typeof v.exit_status === "number") {
			dl.appendChild(R.el("dt", t("e_exit")));
			/* the reason is the gate's sentence, in English: in Chinese, the decision */
			dl.appendChild(R.el("dd", t("e_exit_of", { s: v.exit_status, r: document.documentElement.lang === "zh-CN" ?
				t(v.decision === "pass" ? "pass" : v.decision === "fail" ? "fail" : "v_none") : v.reason || "" })));
		}
		Object.keys(s.means || {}).sort().forEach(function (k) {
			var tr = R.el("tr");
			R.td(tr, "e_c_metric", k);
			R.td(tr, "e_c_mean", typeof s.means[k] === "number" ? s.means[k].toFixed(3) : "–", "num");
			tb.appendChild(tr);
		});
	}
	function poll() {
		clearTimeout(timer);
		if (!cur) return Promise.resolve();
		return R.get("/api/evals/" + encodeURIComponent(cur.id)).then(function (s) {
			cur = s;
			render();
			R.drawn();
			if (/^(running|cancelling)$/.test(s.state)) timer = setTimeout(poll, 1000);
			else R.reloadRuns();
		}).catch(function (e) { R.showError(e.message); R.drawn(); });
	}
	function follow(s) {
		cur = s;
		render();
		R.showError("");
		return poll();
	}
	document.addEventListener("DOMContentLoaded", function () {
		$("tab-evals").addEventListener("click", function () {
			R.tab("evals");
			if (!defaults) load();
		});
		form().testset.addEventListener("change", fillVersions);
		form().profile.addEventListener("change", function () {
			var p = profile();
			fillDefaults(p || defaults, true);
		});
		form().addEventListener("submit", function (ev) {
			var b;
			ev.preventDefault();
			try { b = body(); } catch (e) { R.showError(e.message); R.drawn(); return; }
			post("/api/evals", b).then(follow).catch(function (e) { R.showError(e.message); R.drawn(); });
		});
		$("eval-cancel").addEventListener("click", function () {
			if (cur) post("/api/evals/" + encodeURIComponent(cur.id) + "/cancel", {}).then(follow)
				.catch(function (e) { R.showError(e.message); });
		});
		$("eval-resume").addEventListener("click", function () {
			if (cur) post("/api/evals/" + encodeURIComponent(cur.id) + "/resume", {}).then(follow)
				.catch(function (e) { R.showError(e.message); });
		});
		$("eval-open").addEventListener("click", function () { if (cur && cur.run) R.openRun(cur.run); });
	});
	R.onLang(function () {
		if (sets.length || defaults) {
			var f = form(), v = f.version.value;
			fillSets();
			f.version.value = v;
			fillProfiles();
		}
		renderKey();
		render();
	});
})();
