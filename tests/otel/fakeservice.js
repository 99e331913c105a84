#!/usr/bin/env node
// fakeservice.js - a fake RAG service traced by the real OpenTelemetry JS SDK (tests/t/71-otel-sdk.t).
//
//   node fakeservice.js --flavour springai|genai|openinference --in REQUESTS.jsonl --log LOG.jsonl
//        [--file TRACES.jsonl] [--otlp-json URL] [--otlp-proto URL] [--header NAME=VALUE]...
//
// For each line of REQUESTS (a request the service answered: question, contexts [{id, text,
// score}], answer, model, usage {prompt_tokens, completion_tokens}, feedback "up"|"down"|null,
// error (a message, or null), start (ISO time), latency_ms) it makes the spans a service
// instrumented one of three ways makes, with the SDK's own tracer, ids, span processors and
// exporters; times are the request's own (explicit startTime and end times), so every record
// rag-trace makes can be checked field by field against LOG: one line a request, with the trace
// and root span ids the SDK gave, and the values set on the spans.
//
// Exporters (any together: one tracer provider, a BatchSpanProcessor each, so all of them get
// the same spans): --file appends each export request as one line of OTLP JSON, encoded by the
// SDK's own serializer (@opentelemetry/otlp-transformer's JsonTraceSerializer, what the OTLP/HTTP
// JSON exporter sends), as the Collector's file exporter writes; --otlp-json URL is the OTLP/HTTP
// JSON exporter, --otlp-proto URL the OTLP/HTTP protobuf exporter (URL: the /v1/traces endpoint).
// The script ends after forceFlush and shutdown of the provider: every span exported, no sleep.
// An export that failed makes the exit status 1.
'use strict';

const fs = require('fs');
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { ATTR_SERVICE_NAME } = require('@opentelemetry/semantic-conventions');
const { ExportResultCode } = require('@opentelemetry/core');
const { JsonTraceSerializer } = require('@opentelemetry/otlp-transformer');
const { OTLPTraceExporter: JsonExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { OTLPTraceExporter: ProtoExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

function usage(msg) {
	process.stderr.write(`fakeservice.js: ${msg}\n`);
	process.exit(2);
}

const opt = { headers: {} };
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i], v = process.argv[i + 1];
	if (v === undefined) usage(`${a} needs a value`);
	i++;
	switch (a) {
	case '--flavour': opt.flavour = v; break;
	case '--in': opt.in = v; break;
	case '--log': opt.log = v; break;
	case '--file': opt.file = v; break;
	case '--otlp-json': opt.json = v; break;
	case '--otlp-proto': opt.proto = v; break;
	case '--header': {
		const eq = v.indexOf('=');
		if (eq < 1) usage('--header NAME=VALUE');
		opt.headers[v.slice(0, eq)] = v.slice(eq + 1);
		break;
	}
	default: usage(`unknown option ${a}`);
	}
}
if (!['springai', 'genai', 'openinference'].includes(opt.flavour)) usage('--flavour springai, genai or openinference');
if (!opt.in || !opt.log) usage('--in and --log are needed');
if (!opt.file && !opt.json && !opt.proto) usage('no exporter: --file, --otlp-json or --otlp-proto');

// ---------------------------------------------------------------- the exporters

// The file exporter: each batch one line, the SDK's OTLP JSON encoding of an
// ExportTraceServiceRequest (the JSON exporter's body, the Collector file exporter's line).
class FileExporter {
	constructor(path) { this.path = path; fs.writeFileSync(path, ''); }
	export(spans, done) {
		try {
			const body = Buffer.from(JsonTraceSerializer.serializeRequest(spans));
			fs.appendFileSync(this.path, body.toString('utf8') + '\n');
			done({ code: ExportResultCode.SUCCESS });
		} catch (error) {
			done({ code: ExportResultCode.FAILED, error });
		}
	}
	forceFlush() { return Promise.resolve(); }
	shutdown() { return Promise.resolve(); }
}

// An exporter whose failures are counted: the script's exit status says whether all arrived.
let failures = 0;
function counted(name, exporter) {
	return {
		export(spans, done) {
			exporter.export(spans, (res) => {
				if (res.code !== ExportResultCode.SUCCESS) {
					failures++;
					process.stderr.write(`fakeservice.js: ${name} export failed: ${res.error ? res.error.message : 'unknown'}\n`);
				}
				done(res);
			});
		},
		forceFlush() { return exporter.forceFlush ? exporter.forceFlush() : Promise.resolve(); },
		shutdown() { return exporter.shutdown(); },
	};
}

// Batches of 7 spans, sent when full or at forceFlush (the delay is long: no export by the
// clock), so a trace's spans are split across export requests as a busy service splits them.
const batch = { maxExportBatchSize: 7, maxQueueSize: 4096, scheduledDelayMillis: 3600000 };
const processors = [];
if (opt.file) processors.push(new BatchSpanProcessor(counted('file', new FileExporter(opt.file)), batch));
if (opt.json) processors.push(new BatchSpanProcessor(counted('otlp-json', new JsonExporter({ url: opt.json, headers: opt.headers })), batch));
if (opt.proto) processors.push(new BatchSpanProcessor(counted('otlp-proto', new ProtoExporter({ url: opt.proto, headers: opt.headers })), batch));

const provider = new BasicTracerProvider({
	resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: `fake-rag-${opt.flavour}` }),
	spanProcessors: processors,
});
const tracer = provider.getTracer('ragpipe-fakeservice', '1.0.0');
const { SpanKind, SpanStatusCode } = api;

// ---------------------------------------------------------------- time

// ms since the epoch (a number, fractions allowed) as the SDK's HrTime, exactly
function hr(ms) {
	const whole = Math.floor(ms);
	return [Math.floor(whole / 1000), (whole % 1000) * 1e6 + Math.round((ms - whole) * 1e6)];
}

// a span under parent (or a root), started at ms
function start(name, kind, ms, attrs, parent) {
	const ctx = parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent) : api.ROOT_CONTEXT;
	return tracer.startSpan(name, { kind, startTime: hr(ms), attributes: attrs }, ctx);
}

function fail(span, message, ms) {
	const err = new Error(message);
	err.name = 'UpstreamError';
	span.recordException(err, hr(ms));
	span.setStatus({ code: SpanStatusCode.ERROR, message });
}

// ---------------------------------------------------------------- the three instrumentations
// Each gets the request r and its times: t0 the root's start, t1 its end; the retrieval runs
// t0+5 .. t0+45 ms, the model t0+50 .. t1-10 ms. Each returns {root, feedback}: the root span and
// the feedback value as set on it (null: none).

// Spring AI's observations (Micrometer Tracing's OpenTelemetry bridge), as Spring AI 1.0.0's
// milestones write them with spring.ai.chat.observations.log-prompt/log-completion and
// spring.ai.vectorstore.observations.log-query-response on:
//  - the chat client: spring.ai.kind=chat_client, gen_ai.operation.name=framework,
//    gen_ai.system=spring_ai, spring.ai.chat.client.stream; the user text in
//    spring.ai.chat.client.user.text (docs.spring.io/spring-ai/reference/1.0/observabilty, the
//    ChatClient's high cardinality keys);
//  - the vector store's query (db.system, db.operation.name=query, spring.ai.kind=vector_store,
//    db.vector.query.content, db.vector.query.top_k, db.collection.name); the documents it
//    returned as the span event "db.vector.content.query.response" whose attribute
//    db.vector.query.content is the documents' texts, a string array
//    (VectorStoreQueryResponseObservationHandler, VectorStoreObservationEventNames in
//    spring-projects/spring-ai: the event's key is the query's, not
//    db.vector.query.response.documents);
//  - the chat model (gen_ai.operation.name=chat, gen_ai.system, gen_ai.request.model,
//    gen_ai.response.model, gen_ai.usage.input_tokens/output_tokens/total_tokens) with the
//    events gen_ai.content.prompt {gen_ai.prompt: string array} and gen_ai.content.completion
//    {gen_ai.completion: string array} (ChatModelPromptContentObservationHandler and
//    ChatModelCompletionObservationHandler; Spring AI PR #1237: content as span events).
// No document ids or scores: Spring AI's observations carry the texts only.
function springai(r, t0, t1) {
	const root = start('http post /ask', SpanKind.SERVER, t0, { 'http.request.method': 'POST', 'http.route': '/ask' });
	const feedback = r.feedback ? (r.feedback === 'down' ? -1 : 1) : null;
	if (feedback !== null) root.setAttribute('user.feedback', feedback);
	const client = start('spring_ai chat_client', SpanKind.INTERNAL, t0 + 2, {
		'gen_ai.operation.name': 'framework', 'gen_ai.system': 'spring_ai', 'spring.ai.kind': 'chat_client',
		'spring.ai.chat.client.stream': false, 'spring.ai.chat.client.user.text': r.question,
		'spring.ai.chat.client.advisors': ['QuestionAnswerAdvisor'],
	}, root);
	const vs = start('pg_vector query', SpanKind.CLIENT, t0 + 5, {
		'db.system': 'pg_vector', 'db.operation.name': 'query', 'spring.ai.kind': 'vector_store',
		'db.collection.name': 'kb', 'db.vector.query.content': r.question, 'db.vector.query.top_k': r.contexts.length,
	}, client);
	vs.addEvent('db.vector.content.query.response', { 'db.vector.query.content': r.contexts.map((c) => c.text) }, hr(t0 + 45));
	vs.end(hr(t0 + 45));
	const chat = start(`chat ${r.model}`, SpanKind.CLIENT, t0 + 50, {
		'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': r.model,
	}, client);
	chat.addEvent('gen_ai.content.prompt', {
		'gen_ai.prompt': [`Answer from the context.\nContext:\n${r.contexts.map((c) => c.text).join('\n')}`, r.question],
	}, hr(t1 - 10));
	if (r.error) {
		fail(chat, r.error, t1 - 10);
		fail(client, r.error, t1 - 5);
		fail(root, r.error, t1);
	} else {
		chat.setAttributes({
			'gen_ai.response.model': r.model, 'gen_ai.usage.input_tokens': r.usage.prompt_tokens,
			'gen_ai.usage.output_tokens': r.usage.completion_tokens,
			'gen_ai.usage.total_tokens': r.usage.prompt_tokens + r.usage.completion_tokens,
		});
		chat.addEvent('gen_ai.content.completion', { 'gen_ai.completion': [r.answer] }, hr(t1 - 10));
	}
	chat.end(hr(t1 - 10));
	client.end(hr(t1 - 5));
	return { root, feedback };
}

// OpenTelemetry's GenAI semantic conventions (@opentelemetry/semantic-conventions 1.45's
// incubating attributes, semconv v1.41 docs/gen-ai): a retrieval span (gen_ai.operation.name
// "retrieval", gen_ai.data_source.id, gen_ai.retrieval.query.text, gen_ai.retrieval.documents:
// [{id, score, content}] as a JSON string, which the conventions allow on spans where structured
// values are not supported, as in the JS API) and an inference span "chat {model}" (kind
// CLIENT, gen_ai.provider.name, gen_ai.request.model, gen_ai.response.model,
// gen_ai.usage.input_tokens/output_tokens, gen_ai.input.messages and gen_ai.output.messages as
// JSON strings of {role, parts: [{type: "text", content}]}, gen_ai.response.finish_reasons;
// error.type and an ERROR status on failure, as the conventions' "Recording errors" says).
function genai(r, t0, t1) {
	const root = start('POST /ask', SpanKind.SERVER, t0, { 'http.request.method': 'POST', 'http.route': '/ask' });
	const feedback = r.feedback ? (r.feedback === 'down' ? 'thumbs_down' : 'thumbs_up') : null;
	if (feedback !== null) root.setAttribute('user_feedback', feedback);
	const ret = start('retrieval kb', SpanKind.INTERNAL, t0 + 5, {
		'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': 'kb', 'gen_ai.retrieval.query.text': r.question,
		'gen_ai.retrieval.documents': JSON.stringify(r.contexts.map((c) => ({ id: c.id, score: c.score, content: c.text }))),
	}, root);
	ret.end(hr(t0 + 45));
	const input = [
		{ role: 'system', parts: [{ type: 'text', content: 'Answer from the context only.' }] },
		{ role: 'user', parts: [{ type: 'text', content: `Context: ${r.contexts.map((c) => c.text).join(' ')}\nQuestion: ${r.question}` }] },
	];
	const chat = start(`chat ${r.model}`, SpanKind.CLIENT, t0 + 50, {
		'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': r.model,
		'gen_ai.input.messages': JSON.stringify(input),
	}, root);
	if (r.error) {
		chat.setAttribute('error.type', 'UpstreamError');
		fail(chat, r.error, t1 - 10);
		root.setAttribute('error.type', 'UpstreamError');
		root.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
	} else {
		chat.setAttributes({
			'gen_ai.response.model': r.model, 'gen_ai.response.finish_reasons': ['stop'],
			'gen_ai.usage.input_tokens': r.usage.prompt_tokens, 'gen_ai.usage.output_tokens': r.usage.completion_tokens,
			'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: r.answer }], finish_reason: 'stop' }]),
		});
	}
	chat.end(hr(t1 - 10));
	return { root, feedback };
}

// OpenInference (github.com/Arize-ai/openinference spec/semantic_conventions.md): a CHAIN root
// with input.value (here JSON, input.mime_type application/json, as LangChain's instrumentation
// writes a chain's input) and output.value; a RETRIEVER span with input.value and the flattened
// retrieval.documents.N.document.id/content/score; an LLM span with llm.model_name,
// llm.input_messages.N.message.role/content, llm.output_messages.0.message.*, output.value and
// llm.token_count.prompt/completion/total; exception events and ERROR status on failure.
function openinference(r, t0, t1) {
	const root = start('rag', SpanKind.INTERNAL, t0, {
		'openinference.span.kind': 'CHAIN', 'input.value': JSON.stringify({ question: r.question }),
		'input.mime_type': 'application/json',
	});
	const feedback = r.feedback || null;
	if (feedback !== null) root.setAttribute('feedback', feedback);
	const docs = {};
	r.contexts.forEach((c, i) => {
		docs[`retrieval.documents.${i}.document.id`] = c.id;
		docs[`retrieval.documents.${i}.document.content`] = c.text;
		docs[`retrieval.documents.${i}.document.score`] = c.score;
	});
	const ret = start('retrieve', SpanKind.INTERNAL, t0 + 5, { 'openinference.span.kind': 'RETRIEVER', 'input.value': r.question, ...docs }, root);
	ret.end(hr(t0 + 45));
	const llm = start('ChatCompletion', SpanKind.INTERNAL, t0 + 50, {
		'openinference.span.kind': 'LLM', 'llm.model_name': r.model, 'llm.provider': 'openai',
		'llm.input_messages.0.message.role': 'system', 'llm.input_messages.0.message.content': r.contexts.map((c) => c.text).join('\n'),
		'llm.input_messages.1.message.role': 'user', 'llm.input_messages.1.message.content': r.question,
	}, root);
	if (r.error) {
		fail(llm, r.error, t1 - 10);
		fail(root, r.error, t1);
	} else {
		llm.setAttributes({
			'output.value': r.answer, 'llm.output_messages.0.message.role': 'assistant',
			'llm.output_messages.0.message.content': r.answer, 'llm.token_count.prompt': r.usage.prompt_tokens,
			'llm.token_count.completion': r.usage.completion_tokens,
			'llm.token_count.total': r.usage.prompt_tokens + r.usage.completion_tokens,
		});
		root.setAttributes({ 'output.value': r.answer, 'output.mime_type': 'text/plain' });
	}
	llm.end(hr(t1 - 10));
	return { root, feedback };
}

// ---------------------------------------------------------------- the requests

const make = { springai, genai, openinference }[opt.flavour];
const lines = fs.readFileSync(opt.in, 'utf8').split('\n').filter((l) => l.trim() !== '');
const log = [];
for (const line of lines) {
	const r = JSON.parse(line);
	const t0 = Date.parse(r.start), t1 = t0 + r.latency_ms;
	const { root, feedback } = make(r, t0, t1);
	root.end(hr(t1));
	const sc = root.spanContext();
	log.push(JSON.stringify({
		trace_id: sc.traceId, span_id: sc.spanId, question: r.question, contexts: r.contexts,
		answer: r.error ? null : r.answer, model: r.model, usage: r.error ? null : r.usage, feedback,
		error: r.error || null, started: new Date(t0).toISOString(), latency_ms: r.latency_ms,
	}));
}
fs.writeFileSync(opt.log, log.join('\n') + '\n');

provider.forceFlush()
	.then(() => provider.shutdown())
	.then(() => process.exit(failures ? 1 : 0))
	.catch((e) => { process.stderr.write(`fakeservice.js: ${e.message}\n`); process.exit(1); });
