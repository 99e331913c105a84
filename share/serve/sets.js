/* sets.js - rag-serve's Test sets tab (the test sets by tag; one made, empty or from a file;
 * one deleted) and Cases tab (a version's cases: add, edit, delete, category and tags over the
 * selected, a file imported), in English and Chinese. Every save names the version it was made
 * on; the server answers 409 when the test set has a newer one, and the page says so rather
 * than lose anyone's edit. Every text of the data goes in through textContent, never as HTML. */
"use strict";
(function () {
	var R = window.ragServe, t = R.t, el = R.el, td = R.td;
	R.words({
		en: {
			sets: "Test sets", cases: "Cases", tag: "Knowledge base / tag", c_name: "Name", c_tag: "Tag",
			c_version: "Version", c_cases: "Cases", c_runs: "Runs", c_changed: "Changed", c_actions: "Actions",
			create: "New test set", name: "Name", who: "Your name", format: "Format", auto: "by its content",
			file: "A file (JSON, JSON Lines, CSV), or paste it below", cases_text: "Cases (empty: an empty test set)",
			create_btn: "Create", version: "Version", add: "Add a case", c_tags: "Tags", tags_in: "Tags (comma-separated)", save_case: "Save",
			c_reference: "Reference", extra: "Other fields (JSON)", cancel: "Cancel", apply: "Set on the selected",
			delete_sel: "Delete the selected", import: "Import cases", replace: "instead of the cases there",
			import_text: "Cases", import_btn: "Import", open: "Open", del: "Delete", del_sure: "Delete: sure?",
			sets_of: "{n} test sets", sets_none: "no test sets", version_of: "v{v} of {n}",
			cases_of: "{n} cases", selected: "{n} selected", title_v: "{name} — version {v} of {latest}",
			old_version: "This is an older version: it is read-only. Open the newest to edit.",
			made: "Made \u201c{name}\u201d, version {v}, {n} cases.", saved: "Saved as version {v} ({n} cases).",
			same: "Nothing changed: still version {v}.", deleted: "Deleted \u201c{name}\u201d.",
			conflict: "Not saved: ", reload: "Reload the newest", new_case: "A new case", edit_case: "Case #{seq}",
			edit: "Edit", need_sel: "select some cases first", need_name: "give the test set a name",
			bad_extra: "Other fields: not a JSON object", need_set: "open a test set first",
			c_sel: "Select", someone: "someone", cases_q: "Search", cases_cat: "Category", cat_all: "all",
			cat_none: "(none)", cases_page: "cases {a}–{b} of {n} found ({all} in this version)", cases_found_none: "no case found",
			changed: "Not saved: test set \u201c{name}\u201d was changed (version {v}, by {who}, {at}) after you opened version {base}; reload it and apply your edit again."
		},
		zh: {
			sets: "测试集", cases: "用例管理", tag: "知识库 / 标签", c_name: "名称", c_tag: "标签",
			c_version: "版本", c_cases: "用例数", c_runs: "运行次数", c_changed: "修改时间", c_actions: "操作",
			create: "新建测试集", name: "名称", who: "你的名字", format: "格式", auto: "按内容识别",
			file: "选择文件（JSON、JSON Lines、CSV），或粘贴到下方", cases_text: "用例（留空：空测试集）",
			create_btn: "创建", version: "版本", add: "新增用例", c_tags: "标签", tags_in: "标签（逗号分隔）", save_case: "保存",
			c_reference: "参考答案", extra: "其他字段（JSON）", cancel: "取消", apply: "应用到所选",
			delete_sel: "删除所选", import: "导入用例", replace: "替换现有用例",
			import_text: "用例", import_btn: "导入", open: "打开", del: "删除", del_sure: "确认删除？",
			sets_of: "共 {n} 个测试集", sets_none: "没有测试集", version_of: "v{v}，共 {n} 个版本",
			cases_of: "共 {n} 条用例", selected: "已选 {n} 条", title_v: "{name} — 版本 {v}（最新 {latest}）",
			old_version: "这是旧版本，只读。请打开最新版本再编辑。",
			made: "已创建“{name}”，版本 {v}，{n} 条用例。", saved: "已保存为版本 {v}（{n} 条用例）。",
			same: "没有变化：仍是版本 {v}。", deleted: "已删除“{name}”。",
			conflict: "未保存：", reload: "重新加载最新版本", new_case: "新用例", edit_case: "用例 #{seq}",
			edit: "编辑", need_sel: "请先选择用例", need_name: "请填写测试集名称",
			bad_extra: "其他字段：不是 JSON 对象", need_set: "请先打开一个测试集",
			c_sel: "选择", someone: "他人", cases_q: "搜索", cases_cat: "类别", cat_all: "全部",
			cat_none: "（无类别）", cases_page: "第 {a}–{b} 条，共找到 {n} 条（此版本共 {all} 条）", cases_found_none: "没有找到用例",
			changed: "未保存：测试集“{name}”在你打开版本 {base} 之后已被修改（版本 {v}，{who}，{at}）。请重新加载后再次修改。"
		}
	});
	/* the cases are found and paged by the server (servesets.c): the page holds one page */
	var CASES_PAGE = 25;
	var st = { sets: null, tag: "", set: null, sel: {}, editing: 0, files: {}, find: { q: "", category: "", page: 1 } };
	function $(id) { return document.getElementById(id); }
	function enc(s) { return encodeURIComponent(s); }
	function note(id, msg, cls) {
		var n = $(id);
		n.textContent = msg || "";
		n.className = "note" + (cls ? " " + cls : "");
		return n;
	}
	var post = R.post;
	function tags(s) {
		return s.split(/[,，]/).map(function (x) { return x.trim(); }).filter(function (x) { return x; });
	}
	function text(v) {
		if (v === undefined || v === null) return "";
		return typeof v === "string" ? v : JSON.stringify(v);
	}
	/* a file input read into its form's textarea (the text sent is what the page shows) */
	function fileInto(form) {
		form.file.addEventListener("change", function () {
			var f = form.file.files[0];
			if (!f) return;
			var rd = new FileReader();
			rd.onload = function () {
				form.text.value = String(rd.result);
				st.files[form.id] = f.name;
				R.drawn();
			};
			rd.readAsText(f);
		});
		form.text.addEventListener("input", function () { st.files[form.id] = null; });
	}

	/* ---------------------------------------------------------------- Test sets */
	function loadSets() {
		return R.get("/api/testsets" + (st.tag ? "?tag=" + enc(st.tag) : "")).then(function (b) {
			st.sets = b;
			renderSets();
			R.drawn();
		}).catch(function (e) { note("sets-note", t("error") + e.message, "bad"); R.drawn(); });
	}
	function renderSets() {
		var tb = $("testsets").tBodies[0], dl = $("tags-list");
		if (!st.sets) return;
		tb.textContent = "";
		st.sets.testsets.forEach(function (s) {
			var tr = el("tr"), acts, open = el("button", t("open"), "open-set"), del = el("button", t("del"), "delete-set");
			td(tr, "c_name", s.name);
			td(tr, "c_tag", s.tag || "");
			td(tr, "c_version", t("version_of", { v: s.latest, n: s.versions.length }), "num");
			td(tr, "c_cases", s.n, "num");
			td(tr, "c_runs", s.runs, "num");
			td(tr, "c_changed", (s.created || "") + (s.author ? " · " + s.author : ""));
			acts = td(tr, "c_actions", "");
			acts.className = "acts";
			open.type = del.type = "button";
			open.addEventListener("click", function () { openSet(s.name, 0); });
			del.addEventListener("click", function () {
				/* a second click deletes: no dialog to block the page */
				if (!del.getAttribute("data-armed")) {
					del.setAttribute("data-armed", "1");
					del.textContent = t("del_sure");
					return;
				}
				post("/api/testsets/" + enc(s.name) + "/delete", { base_version: s.latest }).then(function () {
					note("sets-note", t("deleted", { name: s.name }), "ok");
					if (st.set && st.set.name === s.name) { st.set = null; $("tab-cases").disabled = true; }
					return loadSets();
				}).catch(function (e) { note("sets-note", t("error") + e.message, "bad"); R.drawn(); });
			});
			acts.appendChild(open);
			acts.appendChild(del);
			tb.appendChild(tr);
		});
		$("sets-count").textContent = st.sets.testsets.length ? t("sets_of", { n: st.sets.testsets.length }) : t("sets_none");
		dl.textContent = "";
		st.sets.tags.forEach(function (g) { var o = el("option"); o.value = g; dl.appendChild(o); });
	}
	function create(ev) {
		var f = $("create"), body;
		ev.preventDefault();
		if (!f.name.value.trim()) { note("sets-note", t("need_name"), "bad"); R.drawn(); return; }
		body = { name: f.name.value.trim(), tag: f.tag.value.trim(), who: f.who.value.trim(), text: f.text.value,
			format: f.format.value };
		if (st.files.create) body.file = st.files.create;
		if (!body.who) delete body.who;
		post("/api/testsets", body).then(function (b) {
			note("sets-note", t("made", { name: b.name, v: b.version, n: b.n }), "ok");
			f.name.value = "";
			f.text.value = "";
			f.file.value = "";
			st.files.create = null;
			if (!$("cases-head").who.value) $("cases-head").who.value = body.who || "";
			return loadSets();
		}).catch(function (e) { note("sets-note", t("error") + e.message, "bad"); R.drawn(); });
	}

	/* ---------------------------------------------------------------- Cases */
	/* a test set's version opened on the Cases tab, found and paged as find says ({q, category,
	 * page}; kept when absent); its address #/cases/NAME?q=&category=&page=&version= */
	function openSet(name, version, find) {
		var f = find || st.find, q = "?offset=" + (Math.max(1, f.page || 1) - 1) * CASES_PAGE + "&limit=" + CASES_PAGE;
		if (st.set && st.set.name !== name && !find) f = { q: "", category: "", page: 1 };
		if (version) q += "&version=" + version;
		if (f.q) q += "&q=" + enc(f.q);
		if (f.category) q += "&category=" + enc(f.category);
		return R.get("/api/testsets/" + enc(name) + q).then(function (b) {
			/* a page past the end (cases deleted from the last page): its last page instead */
			if (!b.cases.length && b.total > 0 && b.offset > 0)
				return openSet(name, version, { q: f.q, category: f.category, page: Math.ceil(b.total / CASES_PAGE) });
			if (!st.set || st.set.name !== b.name || st.set.version !== b.version) st.sel = {};
			st.set = b;
			st.find = { q: f.q || "", category: f.category || "", page: Math.floor(b.offset / CASES_PAGE) + 1 };
			st.editing = 0;
			$("case-form").hidden = true;
			note("cases-note", "");
			$("tab-cases").disabled = false;
			R.tab("cases");
			R.here("cases", [b.name], { q: st.find.q, category: st.find.category,
				page: st.find.page > 1 ? st.find.page : "", version: b.version !== b.latest ? b.version : "" });
			renderCases();
			R.drawn();
		}).catch(function (e) { R.showError(e.message); R.drawn(); });
	}
	function findForm() {
		var f = $("cases-find"), sel = f.category, s = st.set;
		f.q.value = st.find.q;
		sel.textContent = "";
		[["", t("cat_all")], ["-", t("cat_none")]].concat((s.categories || []).map(function (c) { return [c, c]; }))
			.forEach(function (p) { var o = el("option", p[1]); o.value = p[0]; sel.appendChild(o); });
		if (st.find.category && (s.categories || []).indexOf(st.find.category) < 0 && st.find.category !== "-") {
			var o = el("option", st.find.category);
			o.value = st.find.category;
			sel.appendChild(o);
		}
		sel.value = st.find.category;
		var p = $("cases-pager"), a = s.total ? s.offset + 1 : 0, b = s.offset + s.cases.length;
		p.querySelector("span").textContent = s.total ? a + "–" + b + " / " + s.total : "";
		p.querySelector('[data-dir="-1"]').disabled = s.offset <= 0;
		p.querySelector('[data-dir="1"]').disabled = b >= s.total;
		$("cases-count").textContent = s.total ? t("cases_page", { a: a, b: b, n: s.total, all: s.all }) : t("cases_found_none");
	}
	function readOnly() { return st.set && st.set.version !== st.set.latest; }
	function renderCases() {
		var s = st.set, tb = $("cases-table").tBodies[0], sel = $("cases-head").version, v;
		if (!s) return;
		$("cases-title").textContent = t("title_v", { name: s.name, v: s.version, latest: s.latest });
		sel.textContent = "";
		for (v = s.latest; v >= 1; v--) {
			var o = el("option", "v" + v);
			o.value = String(v);
			sel.appendChild(o);
		}
		sel.value = String(s.version);
		tb.textContent = "";
		s.cases.forEach(function (c, i) {
			var seq = s.seqs[i], tr = el("tr"), box = el("input"), acts, ed = el("button", t("edit"), "edit-case"),
				del = el("button", t("del"), "delete-case");
			box.type = "checkbox";
			box.className = "sel";
			box.checked = !!st.sel[seq];
			box.setAttribute("aria-label", "#" + seq);
			box.addEventListener("change", function () { st.sel[seq] = box.checked; bulkCount(); });
			td(tr, "c_sel", "").appendChild(box);
			td(tr, "#", seq, "num");
			td(tr, "c_id", text(c.id));
			td(tr, "c_question", "").appendChild(el("div", text(c.question), "long"));
			td(tr, "c_reference", "").appendChild(el("div", text(c.reference), "long"));
			td(tr, "c_category", text(c.category));
			td(tr, "c_tags", Array.isArray(c.tags) ? c.tags.join(", ") : text(c.tags));
			acts = td(tr, "c_actions", "");
			acts.className = "acts";
			ed.type = del.type = "button";
			ed.disabled = del.disabled = readOnly();
			ed.addEventListener("click", function () { editCase(seq); });
			del.addEventListener("click", function () { save([{ op: "delete", seqs: [seq] }]); });
			acts.appendChild(ed);
			acts.appendChild(del);
			tb.appendChild(tr);
		});
		findForm();
		["case-add", "bulk-delete"].forEach(function (id) { $(id).disabled = readOnly(); });
		$("bulk").querySelector('[type="submit"]').disabled = readOnly();
		$("import").querySelector('[type="submit"]').disabled = readOnly();
		if (readOnly()) note("cases-note", t("old_version"), "");
		bulkCount();
		if (st.editing) $("case-form-title").textContent = st.editing > 0 ? t("edit_case", { seq: st.editing }) : t("new_case");
	}
	function bulkCount() {
		$("bulk-count").textContent = t("selected", { n: selected().length });
	}
	function selected() {
		return Object.keys(st.sel).filter(function (k) { return st.sel[k]; }).map(Number).sort(function (a, b) { return a - b; });
	}
	/* the editor: seq > 0 a case of the version, -1 a new one */
	function editCase(seq) {
		var f = $("case-form"), c = seq > 0 ? st.set.cases[st.set.seqs.indexOf(seq)] || {} : {}, rest = {};
		st.editing = seq;
		f.hidden = false;
		$("case-form-title").textContent = seq > 0 ? t("edit_case", { seq: seq }) : t("new_case");
		f.id.value = text(c.id);
		f.question.value = text(c.question);
		f.reference.value = text(c.reference);
		f.category.value = text(c.category);
		f.tags.value = Array.isArray(c.tags) ? c.tags.join(", ") : text(c.tags);
		Object.keys(c).forEach(function (k) {
			if (["id", "question", "reference", "category", "tags"].indexOf(k) < 0) rest[k] = c[k];
		});
		f.extra.value = Object.keys(rest).length ? JSON.stringify(rest) : "";
		f.question.focus();
	}
	function saveCase(ev) {
		var f = $("case-form"), c = {}, tg = tags(f.tags.value);
		ev.preventDefault();
		if (f.extra.value.trim()) {
			try { c = JSON.parse(f.extra.value); } catch (e) { c = null; }
			if (!c || typeof c !== "object" || Array.isArray(c)) { note("cases-note", t("bad_extra"), "bad"); R.drawn(); return; }
		}
		if (f.id.value.trim()) c.id = f.id.value.trim();
		c.question = f.question.value;
		if (f.reference.value) c.reference = f.reference.value;
		if (f.category.value.trim()) c.category = f.category.value.trim();
		if (tg.length) c.tags = tg;
		save([st.editing > 0 ? { op: "edit", seq: st.editing, "case": c } : { op: "add", "case": c }]);
	}
	function save(ops) {
		var s = st.set, who = $("cases-head").who.value.trim(), body = { base_version: s.version, ops: ops };
		if (who) body.who = who;
		return post("/api/testsets/" + enc(s.name) + "/cases", body).then(function (b) {
			st.editing = 0;
			$("case-form").hidden = true;
			return openSet(s.name, 0, st.find).then(function () {
				note("cases-note", b.created ? t("saved", { v: b.version, n: b.n }) : t("same", { v: b.version }), "ok");
			});
		}).catch(function (e) {
			var b = e.body || {}, n = note("cases-note", e.status === 409 && b.latest ?
				t("changed", { name: s.name, v: b.latest, base: b.base_version, who: b.author || t("someone"),
					at: b.created || "" }) : (e.status === 409 ? t("conflict") : t("error")) + e.message,
				e.status === 409 ? "bad conflict" : "bad");
			if (e.status === 409) {
				var rl = el("button", t("reload"), "reload");
				rl.type = "button";
				rl.addEventListener("click", function () { openSet(s.name, 0); });
				n.appendChild(document.createTextNode(" "));
				n.appendChild(rl);
			}
			if (n.scrollIntoView) n.scrollIntoView({ block: "nearest" });
			R.drawn();
		});
	}
	function bulk(ev) {
		var f = $("bulk"), op = { op: "set", seqs: selected() };
		ev.preventDefault();
		if (!op.seqs.length) { note("cases-note", t("need_sel"), "bad"); R.drawn(); return; }
		op.category = f.category.value.trim();
		op.tags = tags(f.tags.value);
		save([op]);
	}
	function importCases(ev) {
		var f = $("import"), op;
		ev.preventDefault();
		op = { op: "import", text: f.text.value, format: f.format.value, replace: f.replace.checked };
		if (!st.set) { note("cases-note", t("need_set"), "bad"); R.drawn(); return; }
		if (st.files["import"]) op.file = st.files["import"];
		save([op]).then(function () {
			if ($("cases-note").className.indexOf("ok") >= 0) { f.text.value = ""; f.file.value = ""; st.files["import"] = null; }
		});
	}

	/* ---------------------------------------------------------------- wiring */
	document.addEventListener("DOMContentLoaded", function () {
		$("tab-sets").addEventListener("click", function () { R.tab("sets"); R.here("sets"); loadSets(); });
		$("tab-cases").addEventListener("click", function () {
			if (!st.set) return;
			R.tab("cases");
			R.here("cases", [st.set.name], { q: st.find.q, category: st.find.category, page: st.find.page > 1 ? st.find.page : "",
				version: st.set.version !== st.set.latest ? st.set.version : "" });
		});
		R.onRoute("sets", function () { R.tab("sets"); loadSets(); });
		R.onRoute("cases", function (a, p) {
			if (!a[0]) return;
			openSet(a[0], Number(p.version) || 0, { q: p.q || "", category: p.category || "", page: Number(p.page) || 1 });
		});
		$("cases-find").addEventListener("submit", function (ev) {
			var f = $("cases-find");
			ev.preventDefault();
			if (st.set) openSet(st.set.name, st.set.version !== st.set.latest ? st.set.version : 0,
				{ q: f.q.value.trim(), category: f.category.value, page: 1 });
		});
		$("cases-find").category.addEventListener("change", function () { $("cases-find").requestSubmit(); });
		$("cases-pager").addEventListener("click", function (ev) {
			var d = ev.target.getAttribute && ev.target.getAttribute("data-dir");
			if (!d || !st.set) return;
			openSet(st.set.name, st.set.version !== st.set.latest ? st.set.version : 0,
				{ q: st.find.q, category: st.find.category, page: st.find.page + Number(d) });
		});
		$("sets-filter").addEventListener("submit", function (ev) {
			ev.preventDefault();
			st.tag = $("sets-filter").tag.value.trim();
			loadSets();
		});
		$("create").addEventListener("submit", create);
		fileInto($("create"));
		fileInto($("import"));
		$("import").addEventListener("submit", importCases);
		$("cases-head").addEventListener("submit", function (ev) { ev.preventDefault(); });
		$("cases-head").version.addEventListener("change", function () {
			openSet(st.set.name, Number($("cases-head").version.value));
		});
		$("case-add").addEventListener("click", function () { editCase(-1); });
		$("case-cancel").addEventListener("click", function () { st.editing = 0; $("case-form").hidden = true; });
		$("case-form").addEventListener("submit", saveCase);
		$("bulk").addEventListener("submit", bulk);
		$("bulk-delete").addEventListener("click", function () {
			var seqs = selected();
			if (!seqs.length) { note("cases-note", t("need_sel"), "bad"); R.drawn(); return; }
			save([{ op: "delete", seqs: seqs }]);
		});
		$("sel-all").addEventListener("change", function () {
			var on = $("sel-all").checked;
			if (!st.set) return;
			st.set.seqs.forEach(function (seq) { st.sel[seq] = on; });
			renderCases();
		});
		R.onLang(function () { renderSets(); renderCases(); });
		loadSets();
	});
})();
