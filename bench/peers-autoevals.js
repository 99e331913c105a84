// peers-autoevals.js - bench/peers.sh's driver for autoevals (JS), a benchmark, not a test.
//
//   node bench/peers-autoevals.js METRIC RECORDS.jsonl J INFLIGHT
//
// METRIC: faithfulness | answer_relevancy | context_recall | context_precision (autoevals'
// Faithfulness, AnswerRelevancy, ContextRecall, ContextPrecision). J records are scored at a
// time (what Braintrust's Eval calls maxConcurrency: autoevals itself is a library of scorers,
// the loop is the caller's); INFLIGHT > 0 also holds the requests in flight to INFLIGHT (a
// semaphore around the client's fetch: AnswerRelevancy sends its 3 questions and 6 embeddings
// at once), 0 leaves them as the scorers send them. The OpenAI client goes to OPENAI_BASE_URL.
// Writes one JSON line a record, in input order: {"id", "score"} or {"id", "score": null,
// "error"}; exit status 1 when a record failed.
'use strict';
const fs = require('fs');
const path = require('path');

const PEERS = process.env.PEERS_DIR;
const req = (m) => require(path.join(PEERS, 'node_modules', m));
const ae = req('autoevals');
const { OpenAI } = req('openai');

const [metric, file, jArg, inflightArg] = process.argv.slice(2);
const J = parseInt(jArg, 10), INFLIGHT = parseInt(inflightArg || '0', 10);
const scorer = { faithfulness: ae.Faithfulness, answer_relevancy: ae.AnswerRelevancy,
	context_recall: ae.ContextRecall, context_precision: ae.ContextPrecision }[metric];
if (!scorer || !(J > 0)) {
	process.stderr.write('usage: peers-autoevals.js METRIC RECORDS J INFLIGHT\n');
	process.exit(2);
}

// a counting semaphore around fetch
let held = 0;
const waiting = [];
async function limitedFetch(url, init) {
	if (INFLIGHT > 0) {
		if (held >= INFLIGHT) await new Promise((r) => waiting.push(r));
		else held++;
	}
	try {
		return await fetch(url, init);
	} finally {
		if (INFLIGHT > 0) {
			const next = waiting.shift();
			if (next) next(); else held--;
		}
	}
}
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY || 'bench-key',
	baseURL: process.env.OPENAI_BASE_URL, fetch: limitedFetch, maxRetries: 0, timeout: 60000 });

const records = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const out = new Array(records.length);
let next = 0, failed = 0;

async function worker() {
	while (next < records.length) {
		const i = next++;
		const r = records[i];
		try {
			const s = await scorer({ input: r.question, output: r.answer, expected: r.reference,
				context: r.contexts, client, model: 'fake-judge', embeddingModel: 'fake-embedding' });
			out[i] = { id: r.id, score: s.score };
		} catch (e) {
			failed++;
			out[i] = { id: r.id, score: null, error: String(e && e.message || e) };
		}
	}
}

(async () => {
	await Promise.all(Array.from({ length: Math.min(J, records.length) }, worker));
	process.stdout.write(out.map((o) => JSON.stringify(o)).join('\n') + '\n');
	process.exit(failed ? 1 : 0);
})();
