/* t-agree.c - rag-agree's measures against worked examples computed apart from the code. */
#include "base.h"
#include "agree.h"
#include "tap.h"

#include <stdlib.h>

int main(void)
{
	double v, t;
	const char *why;
	rag_agree_cls c;
	rag_agree_ci ci[RAG_AGREE_NCI], ci2[RAG_AGREE_NCI];
	rag_agree_ppi_est e;

	/* scikit-learn's documented roc_auc_score example */
	{
		double y[] = {0, 0, 1, 1}, s[] = {0.1, 0.4, 0.35, 0.8};
		ok(rag_agree_auc(s, y, 4, &v, &why) == 0, "auc: defined for two classes");
		is_num(v, 0.75, 1e-12, "auc: scikit-learn's example y=[0,0,1,1] s=[.1,.4,.35,.8] is 0.75");
		/* the thresholds by hand: at 0.1 all positive (F1 4/6), at 0.35 [0,1,1,1] (tp 2, fp 1:
		 * F1 4/5, accuracy 3/4, Youden 1 + 1/2 - 1), at 0.4 [0,1,0,1] (F1 1/2), at 0.8 [0,0,0,1]
		 * (F1 2/3, accuracy 3/4, Youden 1/2 + 1 - 1): 0.35 best for each (the lowest of equal) */
		ok(rag_agree_best_threshold(s, y, 4, RAG_AGREE_F1, &t, &v) == 0, "best threshold found");
		is_num(t, 0.35, 0, "best F1 threshold 0.35");
		is_num(v, 0.8, 1e-12, "best F1 0.8");
		rag_agree_best_threshold(s, y, 4, RAG_AGREE_ACCURACY, &t, &v);
		ok(t == 0.35 && fabs(v - 0.75) < 1e-12, "best accuracy 0.75 at 0.35 (0.8 as good, the lowest kept)");
		rag_agree_best_threshold(s, y, 4, RAG_AGREE_YOUDEN, &t, &v);
		ok(t == 0.35 && fabs(v - 0.5) < 1e-12, "best Youden J 0.5 at 0.35");
	}
	/* ties count half: positives {0.6, 0.9} over negatives {0.2, 0.6}: 1 + 0.5 + 1 + 1 of 4 */
	{
		double y[] = {0, 0, 1, 1}, s[] = {0.2, 0.6, 0.6, 0.9}, y2[] = {0, 1}, s2[] = {0.5, 0.5};
		rag_agree_auc(s, y, 4, &v, &why);
		is_num(v, 0.875, 1e-12, "auc: a positive-negative tie counts half (0.875)");
		rag_agree_auc(s2, y2, 2, &v, &why);
		is_num(v, 0.5, 1e-12, "auc: all tied is 0.5");
	}
	/* degenerate: one class, no pairs */
	{
		double y[] = {1, 1, 1}, s[] = {0.2, 0.5, 0.9};
		ok(rag_agree_auc(s, y, 3, &v, &why) == -1 && isnan(v), "auc: one class only is NAN, not a number");
		ok(why && strstr(why, "one class only"), "auc: the reason says one class only (%s)", why);
		ok(rag_agree_auc(s, y, 0, &v, &why) == -1 && isnan(v) && !strcmp(why, "no pairs"), "auc: no pairs");
		rag_agree_classify(s, y, 3, 0.5, &c);
		ok(c.tp == 2 && c.fn == 1 && c.fp == 0 && c.tn == 0, "one class: the confusion matrix still counts");
		ok(isnan(c.specificity), "one class: specificity 0/0 is NAN");
		ok(rag_agree_best_threshold(s, y, 0, RAG_AGREE_F1, &t, &v) == -1 && isnan(t), "best threshold of nothing: none");
	}
	/* Cohen's kappa by hand: labels [0,1,1,0,1], judge [0,1,0,0,1]: tp 2, fn 1, tn 2, fp 0;
	 * po = 4/5; pe = (2*3 + 3*2)/25 = 12/25; kappa = (0.8 - 0.48)/0.52 = 0.6153846... */
	{
		double y[] = {0, 1, 1, 0, 1}, s[] = {0, 1, 0, 0, 1};
		rag_agree_classify(s, y, 5, 0.5, &c);
		ok(c.tp == 2 && c.fn == 1 && c.tn == 2 && c.fp == 0, "confusion matrix of the kappa example");
		is_num(c.kappa, 0.32 / 0.52, 1e-12, "kappa 0.6154 (hand-computed)");
		is_num(c.accuracy, 0.8, 1e-12, "accuracy 4/5");
		is_num(c.precision, 1, 1e-12, "precision 2/2");
		is_num(c.recall, 2.0 / 3, 1e-12, "recall 2/3");
		is_num(c.f1, 0.8, 1e-12, "F1 2*2/(2*2+0+1)");
	}
	/* kappa of a table: tp 20 fp 5 fn 10 tn 15: po 0.7, pe (25*30 + 25*20)/2500 = 0.5 -> 0.4;
	 * total agreement 1; chance-level agreement 0; both sides one constant: 0/0 */
	is_num(rag_agree_kappa(20, 5, 10, 15), 0.4, 1e-12, "kappa 0.4 (hand-computed table)");
	is_num(rag_agree_kappa(3, 0, 0, 2), 1, 1e-12, "kappa 1 for total agreement");
	is_num(rag_agree_kappa(1, 1, 1, 1), 0, 1e-12, "kappa 0 at chance");
	ok(isnan(rag_agree_kappa(4, 0, 0, 0)), "kappa NAN when both sides say the same constant");
	ok(isnan(rag_agree_kappa(0, 0, 0, 0)), "kappa NAN with no pairs");

	/* Spearman, scipy.stats.spearmanr's documented example: [1,2,3,4,5] vs [5,6,7,8,7] =
	 * 0.8207826816681233. By hand: ranks of y are 1, 2, 3.5, 5, 3.5 (the two 7s share 3 and 4);
	 * against 1..5 (mean 3): sum dx dy = 8, sum dx^2 = 10, sum dy^2 = 9.5, rho = 8/sqrt(95) */
	{
		double x[] = {1, 2, 3, 4, 5}, y[] = {5, 6, 7, 8, 7}, k[] = {7, 7, 7, 7, 7};
		ok(rag_agree_spearman(x, y, 5, &v, &why) == 0, "spearman defined");
		is_num(v, 8 / sqrt(95.0), 1e-12, "spearman 0.82078 with a tie (average ranks)");
		is_num(v, 0.8207826816681233, 1e-12, "spearman: scipy's documented value");
		ok(rag_agree_spearman(x, k, 5, &v, &why) == -1 && isnan(v) && strstr(why, "constant"),
		   "spearman: constant labels are NAN with a reason (%s)", why);
		ok(rag_agree_spearman(k, x, 5, &v, &why) == -1 && strstr(why, "scores are constant"), "spearman: constant scores");
		ok(rag_agree_spearman(x, y, 1, &v, &why) == -1 && isnan(v), "spearman: one pair is NAN");
	}
	/* Kendall tau-b, scipy.stats.kendalltau's documented example: [12,2,1,12,2] vs [1,4,7,1,0]
	 * = -0.47140452079103173. By hand over the 10 pairs: concordant (0,4) (3,4); discordant
	 * (0,1) (0,2) (1,2) (1,3) (2,3) (2,4); tied in x (0,3) (1,4), in y (0,3): tau-b =
	 * (2 - 6) / sqrt((10 - 2)(10 - 1)) = -4 / sqrt(72) */
	{
		double x[] = {12, 2, 1, 12, 2}, y[] = {1, 4, 7, 1, 0}, a[] = {1, 2, 3}, b[] = {3, 2, 1};
		ok(rag_agree_kendall(x, y, 5, &v, &why) == 0, "kendall defined");
		is_num(v, -4 / sqrt(72.0), 1e-12, "kendall tau-b -0.4714 with ties (hand-computed)");
		is_num(v, -0.47140452079103173, 1e-12, "kendall: scipy's documented value");
		rag_agree_kendall(a, b, 3, &v, &why);
		is_num(v, -1, 1e-12, "kendall: reversed order is -1");
		ok(rag_agree_kendall(a, a, 1, &v, &why) == -1 && isnan(v), "kendall: one pair is NAN");
	}

	/* prediction-powered inference by the formula (Angelopoulos et al. 2023, the mean):
	 * judge over all 8: [1,1,0,1,0,1,1,0], mean 5/8; labelled 4: judge [1,1,0,1], human
	 * [1,0,0,1], differences [0,1,0,0], mean 1/4; theta = 5/8 - 1/4 = 0.375.
	 * var(judge) = (5 * 0.375^2 + 3 * 0.625^2)/7 = 1.875/7; var(diff) = (3 * 0.25^2 + 0.75^2)/3
	 * = 0.25; se = sqrt(1.875/56 + 0.25/4) = 0.30980985; z(0.95) = 1.95996398;
	 * interval 0.375 -+ 0.60721615 = [-0.23221615, 0.98221615] */
	{
		double all[] = {1, 1, 0, 1, 0, 1, 1, 0}, jl[] = {1, 1, 0, 1}, hl[] = {1, 0, 0, 1};
		is_num(rag_agree_z(0.95), 1.959963984540054, 1e-9, "z of 0.95");
		is_num(rag_agree_z(0.9), 1.6448536269514722, 1e-9, "z of 0.90");
		ok(isnan(rag_agree_z(1)), "z of 1 is NAN");
		ok(rag_agree_ppi(all, 8, jl, hl, 4, 0.95, &e, &why) == 0, "ppi defined");
		is_num(e.estimate, 0.375, 1e-12, "ppi estimate 0.375");
		is_num(e.judge_mean, 0.625, 1e-12, "ppi: the judge's mean");
		is_num(e.rectifier, 0.25, 1e-12, "ppi: the rectifier");
		is_num(e.se, sqrt(1.875 / 56 + 0.0625), 1e-12, "ppi standard error");
		is_num(e.lo, -0.2322161471071854, 1e-9, "ppi lower bound");
		is_num(e.hi, 0.9822161471071854, 1e-9, "ppi upper bound");
		ok(e.n_all == 8 && e.n_labelled == 4, "ppi counts");
		ok(rag_agree_ppi(all, 8, jl, hl, 1, 0.95, &e, &why) == -1 && isnan(e.estimate) && strstr(why, "one labelled"),
		   "ppi: one label is NAN with a reason");
		ok(rag_agree_ppi(all, 8, jl, hl, 0, 0.95, &e, &why) == -1 && !strcmp(why, "no labelled records"), "ppi: none labelled");
	}

	/* the bootstrap: the same seed the same interval; the point inside it; a one-class
	 * resample does not enter AUC's interval */
	{
		double s[40], y[40];
		int i, inside;
		rag_agree_cls pc;
		for (i = 0; i < 40; i++) {
			y[i] = i % 3 == 0;
			s[i] = (i % 3 == 0 ? 0.6 : 0.3) + 0.01 * (i % 7) - (i % 5 == 0 ? 0.25 : 0);
		}
		rag_agree_auc(s, y, 40, &v, &why);
		rag_agree_classify(s, y, 40, 0.5, &pc);
		ok(rag_agree_bootstrap(s, y, 40, 0.5, 500, 0.95, 7, ci) == 0, "bootstrap runs");
		rag_agree_bootstrap(s, y, 40, 0.5, 500, 0.95, 7, ci2);
		ok(!memcmp(ci, ci2, sizeof ci), "bootstrap: the same seed, the same intervals");
		inside = ci[RAG_AGREE_CI_AUC].lo <= v && v <= ci[RAG_AGREE_CI_AUC].hi
		      && ci[RAG_AGREE_CI_ACCURACY].lo <= pc.accuracy && pc.accuracy <= ci[RAG_AGREE_CI_ACCURACY].hi
		      && ci[RAG_AGREE_CI_KAPPA].lo <= pc.kappa && pc.kappa <= ci[RAG_AGREE_CI_KAPPA].hi;
		ok(inside, "bootstrap: the point estimates lie in their intervals (auc %.3f in [%.3f, %.3f])", v,
		   ci[RAG_AGREE_CI_AUC].lo, ci[RAG_AGREE_CI_AUC].hi);
		ok(ci[RAG_AGREE_CI_AUC].lo < ci[RAG_AGREE_CI_AUC].hi, "bootstrap: an interval with width");
		ok(ci[RAG_AGREE_CI_AUC].defined == 500, "bootstrap: every resample had both classes");
		rag_agree_bootstrap(s, y, 40, 0.5, 500, 0.95, 8, ci2);
		ok(memcmp(ci, ci2, sizeof ci) != 0, "bootstrap: another seed, other draws");
		{
			double s2[] = {0.2, 0.9, 0.4}, y2[] = {0, 1, 0};
			rag_agree_bootstrap(s2, y2, 3, 0.5, 200, 0.95, 1, ci2);
			ok(ci2[RAG_AGREE_CI_AUC].defined > 0 && ci2[RAG_AGREE_CI_AUC].defined < 200,
			   "bootstrap: resamples of one class are left out of AUC (%ld of 200 kept)", ci2[RAG_AGREE_CI_AUC].defined);
			ok(ci2[RAG_AGREE_CI_ACCURACY].defined == 200, "bootstrap: accuracy is defined on every resample");
		}
		ok(rag_agree_bootstrap(s, y, 0, 0.5, 500, 0.95, 7, ci2) == -1 && isnan(ci2[0].lo), "bootstrap of nothing: -1, NANs");
	}

	/* the stratified sample: bands x category */
	{
		/* strata: (band 0, a) x4, (band 3, a) x4, (band 3, b) x2, (band 1, b) x2 -> 4 strata of 12 */
		double s[] = {0.1, 0.9, 0.95, 0.3, 0.2, 0.05, 0.8, 0.85, 0.9, 0.99, 0.0, 0.4};
		const char *cat[] = {"a", "a", "b", "b", "a", "a", "a", "a", "b", "a", "a", "b"};
		size_t p[12], p2[12], n, i, band0a = 0, band3b = 0, band1b = 0;
		n = rag_agree_sample(s, cat, 12, 4, 1, p);
		is_int(n, 4, "sample of 4");
		for (i = 0; i < n; i++) {
			if (s[p[i]] < 0.25 && cat[p[i]][0] == 'a') band0a++;
			if (s[p[i]] >= 0.75 && cat[p[i]][0] == 'b') band3b++;
			if (s[p[i]] >= 0.25 && s[p[i]] < 0.5) band1b++;
		}
		ok(band0a == 1 && band3b == 1 && band1b == 1, "sample: one from each of the four strata");
		for (i = 1; i < n; i++)
			if (p[i] <= p[i - 1]) break;
		ok(i == n, "sample: in input order");
		rag_agree_sample(s, cat, 12, 4, 1, p2);
		ok(!memcmp(p, p2, n * sizeof *p), "sample: the same seed, the same sample");
		n = rag_agree_sample(s, cat, 12, 8, 1, p);
		for (i = 0, band0a = 0; i < n; i++)
			if (s[p[i]] < 0.25 && cat[p[i]][0] == 'a') band0a++;
		/* 4 spare of 8, in proportion to (4-1, 4-1, 2-1, 2-1) of 8: 1.5, 1.5, 0.5, 0.5 -> 1, 1,
		 * 0, 0 and the two remainders of .5 to the first two: 3, 3, 1, 1 */
		ok(n == 8 && band0a == 3, "sample of 8: proportional (3 of the 4 in band 0 x a, got %zu)", band0a);
		n = rag_agree_sample(s, cat, 12, 2, 1, p);
		for (i = 0, band0a = 0, band3b = 0; i < n; i++) {
			if (s[p[i]] < 0.25 && cat[p[i]][0] == 'a') band0a++;
			if (s[p[i]] >= 0.75 && cat[p[i]][0] == 'a') band3b++;
		}
		ok(n == 2 && band0a == 1 && band3b == 1, "sample of 2 of 4 strata: one of each of the two largest");
		is_int(rag_agree_sample(s, cat, 12, 50, 1, p), 12, "sample larger than the run: all of it");
		is_int(rag_agree_sample(s, NULL, 12, 0, 1, p), 0, "sample of 0: none");
	}

	/* values of a field or a label */
	{
		struct { const char *json; int rc; double x; } cases[] = {
			{"true", 0, 1}, {"false", 0, 0}, {"0.25", 0, 0.25}, {"\"yes\"", 0, 1}, {"\"No\"", 0, 0},
			{"\"1\"", 0, 1}, {"\" 0.5 \"", 0, 0.5}, {"\"是\"", 0, 1}, {"\"否\"", 0, 0}, {"\"PASS\"", 0, 1},
			{"null", 1, 0}, {"\"\"", 1, 0}, {"\"maybe\"", -1, 0}, {"[1]", -1, 0}, {"{}", -1, 0},
		};
		size_t i;
		for (i = 0; i < sizeof cases / sizeof *cases; i++) {
			jv j = jv_parse(cases[i].json);
			int rc = rag_agree_value(j, &v);
			ok(rc == cases[i].rc && (rc != 0 || v == cases[i].x), "value %s -> %d %g", cases[i].json, rc, v);
			jv_free(j);
		}
		{
			jv r = jv_parse("{\"scores\":{\"faithfulness\":0.5},\"a.b\":2,\"x\":{\"y\":{\"z\":true}}}");
			jv g = rag_json_path(r, "scores.faithfulness");
			ok(jv_get_kind(g) == JV_KIND_NUMBER && jv_number_value(g) == 0.5, "path scores.faithfulness");
			jv_free(g);
			g = rag_json_path(r, "a.b");
			ok(jv_get_kind(g) == JV_KIND_NUMBER && jv_number_value(g) == 2, "path: a key with a dot in it");
			jv_free(g);
			g = rag_json_path(r, "x.y.z");
			ok(jv_get_kind(g) == JV_KIND_TRUE, "path of three");
			jv_free(g);
			g = rag_json_path(r, "scores.nope");
			ok(!jv_is_valid(g), "path absent: invalid");
			jv_free(g);
			jv_free(r);
		}
	}

	/* the summary: nulls with reasons, never numbers made up; the sheet's quoting */
	{
		double s1[] = {0.1, 0.4, 0.35, 0.8}, y1[] = {0, 0, 1, 1}, g[] = {1, 3, 5, 4};
		rag_agree_opts o = {0.5, 0.95, RAG_AGREE_F1, 200, 1, 0, 1};
		jv sum = rag_agree_summary(s1, y1, 4, s1, 4, &o), x;
		char *txt;
		is_num(rag_json_num(sum, "auc"), 0.75, 1e-12, "summary: auc");
		is_str(jv_string_value(x = rag_json_get(jv_copy(sum), "labels_kind")), "binary", "summary: binary labels");
		jv_free(x);
		txt = rag_agree_text(sum);
		ok(strstr(txt, "ROC AUC          0.750 [") != NULL, "text: AUC with its interval");
		free(txt);
		jv_free(sum);
		sum = rag_agree_summary(s1, g, 4, s1, 4, &o);
		is_str(jv_string_value(x = rag_json_get(jv_copy(sum), "labels_kind")), "graded", "summary: graded labels");
		jv_free(x);
		x = rag_json_get(jv_copy(sum), "auc");
		ok(jv_get_kind(x) == JV_KIND_NULL, "graded labels: auc null");
		jv_free(x);
		x = rag_json_get(rag_json_get(jv_copy(sum), "null_reasons"), "auc");
		ok(jv_get_kind(x) == JV_KIND_STRING && strstr(jv_string_value(x), "graded"), "graded labels: the reason");
		jv_free(x);
		/* ranks 1 3 2 4 against 1 2 4 3: d^2 = 0 1 4 1 = 6, rho = 1 - 6*6/(4*15) = 0.4 */
		is_num(rag_json_num(sum, "spearman"), 0.4, 1e-12, "graded labels: Spearman 0.4 (1 - 6 sum d^2 / n(n^2-1))");
		txt = rag_agree_markdown(sum);
		ok(strstr(txt, "| ROC AUC | null |") != NULL, "markdown: a null shown as null");
		free(txt);
		jv_free(sum);
		sum = rag_agree_summary(s1, y1, 0, s1, 4, &o);
		x = rag_json_get(rag_json_get(jv_copy(sum), "null_reasons"), "ppi");
		ok(jv_get_kind(x) == JV_KIND_STRING && !strcmp(jv_string_value(x), "no labelled records"), "no pairs: ppi null, said why");
		jv_free(x);
		jv_free(sum);
	}
	{
		/* the corrected mean is a mean of labels: it and its interval stay on their scale. Judge
		 * 0.92 over 10, two labels whose differences are -0.8 and 0 (rectifier -0.4): 1.32, se
		 * sqrt(0.064/10 + 0.32/2) = 0.4079, [0.520, 2.120] by the normal interval; clipped,
		 * 1 [0.520, 1] */
		double all[] = {0.2, 1, 1, 1, 1, 1, 1, 1, 1, 1}, js[] = {0.2, 1}, hs[] = {1, 1};
		rag_agree_opts o = {0.5, 0.95, RAG_AGREE_F1, 200, 1, 0, 1};
		rag_agree_ppi_est raw;
		jv sum = rag_agree_summary(js, hs, 2, all, 10, &o), p = rag_json_get(jv_copy(sum), "ppi");
		char *txt;
		rag_agree_ppi(all, 10, js, hs, 2, 0.95, &raw, &why);
		ok(raw.estimate > 1.3 && raw.hi > 2, "ppi: the normal interval of two labels runs past 1 (%.3f [%.3f, %.3f])",
		   raw.estimate, raw.lo, raw.hi);
		is_num(rag_json_num(p, "estimate"), 1, 0, "summary: the estimate clipped to the scale's 1");
		is_num(rag_json_num(p, "hi"), 1, 0, "...and its upper bound");
		is_num(rag_json_num(p, "lo"), raw.lo, 1e-12, "...its lower bound, inside, as it was (%.3f)", raw.lo);
		ok(rag_json_true(p, "clipped"), "...ppi.clipped says so");
		is_num(rag_json_num(p, "judge_mean"), 0.92, 1e-12, "...the judge's mean as it is");
		txt = rag_agree_text(sum);
		ok(strstr(txt, "corrected mean   1.000 [0.520, 1.000] (judge mean 0.920 over 10 records, corrected by 2 labelled; "
		           "clipped to the labels' scale)") != NULL, "text: said");
		free(txt);
		jv_free(p);
		jv_free(sum);
		o.scale_lo = 1;
		o.scale_hi = 5;
		{
			double g5[] = {2, 5}, j5[] = {1.8, 4.4};   /* d -0.2 and -0.6: 4.62 + 0.4, past 5 */
			double a5[] = {1.8, 4.4, 4.9, 4.95, 5, 5, 5, 5};
			sum = rag_agree_summary(j5, g5, 2, a5, 8, &o);
			p = rag_json_get(jv_copy(sum), "ppi");
			ok(rag_json_num(p, "hi") == 5 && rag_json_num(p, "lo") >= 1 && rag_json_true(p, "clipped"),
			   "--scale 1-5: clipped to 5, not 1 (%.3f [%.3f, %.3f])", rag_json_num(p, "estimate"), rag_json_num(p, "lo"),
			   rag_json_num(p, "hi"));
			jv_free(p);
			jv_free(sum);
		}
		o.scale_lo = 0;
		o.scale_hi = 1;
		{
			double a8[] = {0.5, 0.6, 0.5, 0.6, 0.5, 0.6, 0.5, 0.6}, j2[] = {0.5, 0.6}, h2[] = {0.5, 0.5};
			sum = rag_agree_summary(j2, h2, 2, a8, 8, &o);
			p = rag_json_get(jv_copy(sum), "ppi");
			ok(jv_get_kind(jv_object_get(jv_copy(p), jv_string("clipped"))) == JV_KIND_FALSE,
			   "an interval inside the scale: clipped false");
			jv_free(p);
			jv_free(sum);
		}
	}
	{
		jv rows = JV_ARRAY(JV_OBJECT(jv_string("id"), jv_string("q1"), jv_string("answer"), jv_string("a, \"b\"|c"),
		                             jv_string("score"), jv_string("0.5")));
		char *csv = rag_agree_sheet(rows, 0), *md = rag_agree_sheet(rows, 1);
		is_str(csv, "id,category,score,reason,question,answer,contexts,label\r\nq1,,0.5,,,\"a, \"\"b\"\"|c\",,\r\n",
		       "sheet CSV: RFC 4180 quoting, an empty label column");
		ok(strstr(md, "| q1 |  | 0.5 |  |  | a, \"b\"\\|c |  |  |\n") != NULL, "sheet Markdown: | escaped");
		free(csv);
		free(md);
		jv_free(rows);
	}
	{
		/* CSV injection (OWASP): a cell a spreadsheet would run gets a ' first; numbers stay numbers;
		 * the reader's rule gives every text back */
		static const char *const texts[] = {"=HYPERLINK(\"http://x\")", "+1+1", "-r1", "@SUM(1)", "\tx", "\rx",
		                                    "'=x", "''", "'a", "'", "-", "-1", "+0.5", "-2.5e-3", "1", "a=b", "",
		                                    "-inf", "-0x10", "-.5", "-1.", "-e5", NULL};
		static const int want[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1};
		size_t k;
		for (k = 0; texts[k]; k++) {
			char *w = rag_xasprintf("%s%s", rag_csv_protect(texts[k]) ? "'" : "", texts[k]);
			is_int(rag_csv_protect(texts[k]), want[k], "rag_csv_protect(\"%s\")", texts[k]);
			is_str(rag_csv_unprotect(w), texts[k], "\"%s\" written \"%s\", read back", texts[k], w);
			free(w);
		}
	}
	{
		jv rows = JV_ARRAY(JV_OBJECT(jv_string("id"), jv_string("-r1"), jv_string("answer"), jv_string("=1+2"),
		                             jv_string("question"), jv_string("@SUM(1), \"x\""), jv_string("score"),
		                             jv_string("-0.5")));
		char *csv = rag_agree_sheet(rows, 0);
		is_str(csv, "id,category,score,reason,question,answer,contexts,label\r\n'-r1,,-0.5,,\"'@SUM(1), \"\"x\"\"\",'=1+2,,\r\n",
		       "sheet CSV: cells that would be formulas begin with ', inside the quotes too; a number as it is");
		free(csv);
		jv_free(rows);
	}
	return done_testing();
}
