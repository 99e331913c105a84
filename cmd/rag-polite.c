/* rag-polite - how courteous the answer is: a metric tool of one operation (lib/politeness.c). */
#include "tool.h"

int main(int argc, char **argv)
{
	return rag_cli_metric("rag-polite", argc, argv);
}
