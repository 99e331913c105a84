/* t-revq.c - rag_revq_offline, the offline estimate of answer relevancy: an echo of the
 * question is no answer, the kind of answer a question asks for, Chinese, and the edges. */
#include "metric.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static double est(const char *q, const char *a, char *why, size_t n)
{
	return rag_revq_offline(q, a, why, n);
}

int main(void)
{
	char why[256];
	const char *q = "Which river flows through the old mill town?";
	double s, t;

	/* the echo, whole and in part */
	is_num(est(q, q, why, sizeof why), 0, 1e-12, "an answer that is the question scores 0");
	is_str(why, "the answer adds nothing to the question", "...and says why");
	is_num(est(q, "The old mill town river flows through.", why, sizeof why), 0, 1e-12,
	       "a reshuffle of the question's words adds nothing either");

	/* coverage of the question's words */
	s = est(q, "The river Avon flows through the old mill town.", why, sizeof why);
	t = est(q, "The mill was built of local stone.", why, sizeof why);
	ok(s > t, "an answer on the question's subject beats one on another: %g > %g", s, t);
	is_num(s, 1, 1e-12, "every content word of the question, and something new: 1");

	is_num(est("When was the first Super Bowl played?", "The first Superbowl was played in 1967.", why, sizeof why),
	       1, 1e-12, "a question word inside a longer word of the answer (bowl, superbowl) counts");

	/* the kind of answer asked for */
	is_num(est("How many mills did the town have?", "The town had four mills.", why, sizeof why), 1, 1e-12,
	       "how many with a number word: 1");
	is_num(est("How many mills did the town have?", "The town had mills along the river.", why, sizeof why), 0.5,
	       1e-12, "how many without a number: halved");
	ok(strstr(why, "a number") != NULL, "...the reason names what is missing: %s", why);
	is_num(est("When did the mill close?", "In 1931.", why, sizeof why), 1, 1e-12,
	       "a bare answer with the time asked for: 1");
	is_num(est("When did the mill close?", "It closed in 1931.", why, sizeof why), 0.5, 1e-12,
	       "\"It\" for the mill: half the question's words, and the time");
	is_num(est("When did the mill close?", "Quite suddenly.", why, sizeof why), 0.25, 1e-12,
	       "a bare answer without it: 0.25");
	is_num(est("What colour was the mill?", "Red.", why, sizeof why), 0.5, 1e-12,
	       "a bare answer to a question of no particular kind: 0.5, cannot tell");
	is_num(est("Who built the mill?", "The mill was built by Thomas Hale.", why, sizeof why), 1, 1e-12,
	       "who with a name (a capitalised word not opening a sentence): 1");
	is_num(est("Who built the mill?", "The mill was built long ago.", why, sizeof why), 0.5, 1e-12,
	       "who without a name: halved");
	ok(est("Why did the mill close?", "The mill closed because the river silted up.", why, sizeof why) >
	   est("Why did the mill close?", "The mill closed in the winter.", why, sizeof why),
	   "why with a cause beats why without one");
	is_num(est("Is the mill still standing?", "No.", why, sizeof why), 1, 1e-12, "a yes-no question, a bare no: 1");
	is_num(est("How many mills did the town have in 1900?", "The town had mills along the river in 1900.", why, sizeof why), 0.5,
	       1e-12, "the question's own number is not the number asked for");

	/* Chinese */
	is_num(est("磨坊是哪一年关闭的？", "磨坊是哪一年关闭的？", why, sizeof why), 0, 1e-12, "Chinese: an echo scores 0");
	s = est("磨坊是哪一年关闭的？", "磨坊于1931年关闭。", why, sizeof why);
	t = est("磨坊是哪一年关闭的？", "磨坊关闭了。", why, sizeof why);
	ok(s > t, "Chinese: the year asked for beats no year: %g > %g", s, t);
	is_num(est("镇上有多少座磨坊？", "镇上有四座磨坊。", why, sizeof why), 1, 1e-12,
	       "Chinese: 多少 with a numeral, the asking bigrams left out of the question's words: 1");
	ok(est("磨坊为什么关闭？", "因为河道淤塞，磨坊关闭了。", why, sizeof why) >
	   est("磨坊为什么关闭？", "磨坊在冬天关闭了。", why, sizeof why), "Chinese: 为什么 with 因为 beats without");
	s = est("磨坊还在吗？", "是的，还在。", why, sizeof why);
	ok(s > est("磨坊还在吗？", "磨坊很旧。", why, sizeof why) && s > 0.5, "Chinese: 吗 answered 是 is raised (%g)", s);

	/* the question's subject */
	{
		char *x = rag_chunks_subject("How many people live in Zürich?");
		ok(strstr(x, "Zürich") && strstr(x, "people") && !strstr(x, "How") && !strstr(x, "many"),
		   "subject: the asking words blanked, the rest as it is (%s)", x);
		free(x);
		x = rag_chunks_subject("镇上有多少座磨坊？");
		ok(strstr(x, "镇上有") && strstr(x, "座磨坊") && !strstr(x, "多少"), "subject, Chinese: 多少 blanked (%s)", x);
		free(x);
	}

	/* edges */
	is_num(est("", "", why, sizeof why), 0, 1e-12, "nothing asked, nothing said: 0");
	s = est("?", "The mill closed in 1931.", why, sizeof why);
	ok(s >= 0 && s <= 1, "a question with no content words: a value in [0, 1] (%g)", s);
	return done_testing();
}
