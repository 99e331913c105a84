#!/bin/sh
# 15-memory.t - the record stream reads ahead no more than its budget (--max-memory,
# stream.max_memory) and its window: a judge that answers nothing holds the writer upstream in
# the pipe. A writer counts the bytes the tool accepted through a non-blocking pipe until the
# tool stops taking any; the assertion is on those bytes, not on time. A record longer than the
# whole budget still goes, alone, and a small budget changes nothing in the output.
. "$(dirname "$0")/lib.sh"
need python3 jq

# ---------------------------------------------------------------- records of ~470 bytes
awk -v n=9000 'BEGIN {
	for (i = 1; i <= n; i++) {
		printf "{\"id\":\"m%05d\",\"question\":\"What is widget %d?\",", i, i
		printf "\"contexts\":[\"Widget %d is red and weighs %d kilograms.\",\"Widget %d was first made in Lyon in %d.\"],", i, i % 90, i, 1800 + i % 200
		printf "\"answer\":\"Widget %d is red. It weighs %d kilograms. It was made in Lyon. It is a fine widget of its kind, people say.\",", i, i % 90
		printf "\"reference\":\"Widget %d is a red widget of %d kg, made long ago in the city of Lyon by hand.\"}\n", i, i % 90
	}
}' >"$T/big.jsonl"
SIZE=$(wc -c <"$T/big.jsonl" | tr -d ' ')
LONGEST=$(awk '{ if (length($0) + 1 > m) m = length($0) + 1 } END { print m }' "$T/big.jsonl")

# The writer: runs the tool with its stdin a pipe whose write end is non-blocking, writes the
# records into it as fast as the tool takes them; once the judge has REQS requests (the tool
# runs and is waiting on them), it waits until the tool has taken nothing for 1.5 s, then prints
# "ACCEPTED PIPE_SIZE IN_PIPE", interrupts the tool and waits for it.
cat >"$T/writer.py" <<'EOF'
import errno, fcntl, os, select, signal, subprocess, sys, time
data = open(sys.argv[1], "rb").read()
log, reqs, argv = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
r, w = os.pipe()
p = subprocess.Popen(argv, stdin=r, stdout=open(os.environ["T"] + "/w.out", "wb"),
                     stderr=open(os.environ["T"] + "/w.err", "wb"))
os.close(r)
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
pipe_size = fcntl.fcntl(w, 1032)   # F_GETPIPE_SZ
off, last, deadline = 0, time.time(), time.time() + 120
def requests():
    try:
        return sum(1 for _ in open(log))
    except OSError:
        return 0
while off < len(data) and time.time() < deadline and p.poll() is None:
    try:
        n = os.write(w, data[off:off + 65536])
        off += n
        last = time.time()
        continue
    except OSError as e:
        if e.errno != errno.EAGAIN:
            raise
    select.select([], [w], [], 0.1)
    if requests() >= reqs and time.time() - last > 1.5:
        break
import array, termios
buf = array.array("i", [0])
fcntl.ioctl(w, termios.FIONREAD, buf)
print(off, pipe_size, buf[0])
sys.stdout.flush()
p.send_signal(signal.SIGINT)
os.close(w)
p.wait()
EOF

judge_config
printf 'stream:\n  max_memory: 65536\n' >>"$CONF"
cp "$CONF" "$T/small.yaml"
judge_config

# accepted CONFIG OPTS...: the writer's figures for rag-claims -j 2 and OPTS against a judge that
# answers in a minute: sets ACC, PIPE, INPIPE
accepted() {
	_c=$1; shift
	set -- $(T=$T python3 "$T/writer.py" "$T/big.jsonl" "$FAKE_LOG" 2 "$BIN/rag-claims" -c "$_c" -j 2 "$@")
	ACC=${1:-0} PIPE=${2:-0} INPIPE=${3:-0}
}

fake_start --latency-ms 60000

# stream.max_memory: 65536 in the config file
accepted "$T/small.yaml"
note "budget 64 KiB: accepted $ACC of $SIZE bytes, pipe $PIPE, in the pipe $INPIPE, longest line $LONGEST"
check "budget 64 KiB: the judge got its 2 requests (the tool was running)" test "$(nlines "$FAKE_LOG")" -ge 2
check "budget 64 KiB (config): the tool took less than the budget + the pipe + one line" \
	test "$ACC" -le $((65536 + PIPE + LONGEST))
check "budget 64 KiB: and it did read (more than the pipe holds)" test "$ACC" -gt "$PIPE"
check "budget 64 KiB: the input was far from all written" test "$ACC" -lt $((SIZE / 4))
is "$(nlines "$T/w.out")" "$(jq -s length "$T/w.out")" "interrupted: every line written is one JSON object"

# --max-memory on the command line
fake_start --latency-ms 60000
accepted "$CONF" --max-memory 131072
note "budget 128 KiB: accepted $ACC of $SIZE bytes"
check "--max-memory 131072: the tool took less than the budget + the pipe + one line" \
	test "$ACC" -le $((131072 + PIPE + LONGEST))

# the default budget (16 MiB) with the window of 256 records that -j 2 gives: the window
# binds; the read buffer takes at most 64 KiB besides
fake_start --latency-ms 60000
accepted "$CONF"
note "default budget, window 256: accepted $ACC of $SIZE bytes"
check "default budget: no more than 256 records + 64 KiB read + the pipe taken" \
	test "$ACC" -le $((256 * LONGEST + 65536 + PIPE + LONGEST))
check "default budget: and not the whole input" test "$ACC" -lt "$SIZE"
fake_stop

# ---------------------------------------------------------------- a record over the budget
# two answers of ~200 KB (over a 64 KiB budget) among short records: judged, alone, and the
# output is the same as with the default budget
python3 - "$T/big.jsonl" >"$T/long.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()[:300]
long = " ".join("Widget %d is red." % i for i in range(12000))
for i, l in enumerate(lines):
    print(l)
    if i in (10, 200):
        print(json.dumps({"id": "long%d" % i, "answer": long, "contexts": ["Widget 1 is red."]}))
EOF
check "the long records are over the budget" test "$(awk 'length($0) > 65536' "$T/long.jsonl" | wc -l)" -eq 2
run rag rag-claims -q --judge offline --max-memory 65536 <"$T/long.jsonl"
is "$RC" 0 "budget 64 KiB: a run with records longer than the budget exits 0"
is "$(nlines "$OUT")" 302 "budget 64 KiB: one line out per line in"
is "$(jq -r 'select(.id | startswith("long")) | .claims.answer | length' "$OUT" | tr '\n' ' ')" "20 20 " \
	"budget 64 KiB: the long records are judged (20 claims each, the most)"
cp "$OUT" "$T/small.out"
run rag rag-claims -q --judge offline <"$T/long.jsonl"
check "the output with a 64 KiB budget is the output with the default" cmp "$T/small.out" "$OUT"
run rag rag-claims -q --judge offline --max-memory 65536 --max-line 100000 <"$T/long.jsonl"
is "$(jq -r 'select(.errors) | .errors[0].message' "$OUT" | sort -u)" \
	"line is longer than the limit of 100000 bytes (--max-line)" "--max-line still bounds a record"

# a line over --max-line met just when the budget is full: skipped by the reader, so its item
# is taken at once (each record of 1280 bytes counts 12 x 1280 + 1024 = 16 KiB: 4 fill 64 KiB)
python3 - >"$T/full.jsonl" <<'EOF'
import json
for rep in range(3):
    for i in range(4):
        r = {"id": "s%d_%d" % (rep, i), "answer": "A is B. ", "contexts": ["A is B."]}
        r["answer"] += "x" * (1280 - len(json.dumps(r)))
        print(json.dumps(r))
    print(json.dumps({"id": "long%d" % rep, "answer": "y" * 5000}))
print(json.dumps({"id": "end", "answer": "A is B.", "contexts": ["A is B."]}))
EOF
check "records of 1280 bytes" test "$(sed -n 1p "$T/full.jsonl" | wc -c)" -eq 1281
run rag rag-claims -q --judge offline --max-memory 65536 --max-line 4096 <"$T/full.jsonl"
is "$(nlines "$OUT")" 16 "a line too long when the budget is full: still one line out per line in"
is "$(jq -r '.errors[0].message // .id' "$OUT" | sed -n '5p;10p;15p;16p' | tr '\n' '|')" \
	"line is longer than the limit of 4096 bytes (--max-line)|line is longer than the limit of 4096 bytes (--max-line)|line is longer than the limit of 4096 bytes (--max-line)|end|" \
	"each too long line has its place, and the record after them is there"

# ---------------------------------------------------------------- a slow reader
# What a tool has written and its reader has not taken counts in its budget, in the memory it
# holds: the output queue (stream.c) frees each 64 KiB chunk once written. One buffer moved down
# as it was written held up to twice what waited (rag-kw at --max-memory 4 MiB: 5.2 MB over the
# same run with a fast reader). And a tool that has nothing in flight and no room to read waits
# for its reader: the loop spun a core until the reader took something. The reader below takes
# the output only once the tool has stopped taking input and sleeps; CPU time, not the clock,
# tells a spin. Figures of 4de8d08: 27 spins, 5,208 KiB over the fast run.
cat >"$T/reader.py" <<'EOF'
# reader.py DATA OUT MODE CMD... - run CMD with DATA on its stdin and its stdout into OUT; prints
# its exit status, its peak memory (wait4's ru_maxrss, KiB) and how often it spun. MODE fast:
# the output is read as soon as it comes. MODE slow: the output is read only once CMD takes no
# more input and sleeps (what it holds is then all its budget lets it hold), so what it has
# written waits on it as long as it may; the input is written whenever the pipe takes it. A CMD
# that takes no input and yet does not sleep spins: after 0.5 s of its CPU (not of the clock)
# that is counted and its output read anyway.
import os, select, subprocess, sys
out = open(sys.argv[2], "wb")
slow = sys.argv[3] == "slow"
# started before the data is read: a child's ru_maxrss counts what it held before its exec
p = subprocess.Popen(sys.argv[4:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
data = open(sys.argv[1], "rb").read()
fi, fo = p.stdin.fileno(), p.stdout.fileno()
os.set_blocking(fi, False)
hz = os.sysconf("SC_CLK_TCK")
off, spun, mark = 0, 0, None


def state():
    with open("/proc/%d/stat" % p.pid) as f:
        s = f.read().rsplit(")", 1)[1].split()
    return s[0], int(s[11]) + int(s[12])


def feed():
    global off, mark
    try:
        off += os.write(fi, data[off:off + 65536])
        mark = None
        return True
    except BlockingIOError:
        return False


def take():
    b = os.read(fo, 65536)
    out.write(b)
    return len(b) > 0


while True:
    if off >= len(data):
        if not p.stdin.closed:
            p.stdin.close()
        if not take():
            break
        continue
    if slow:
        if select.select([], [fi], [], 0.002)[1] and feed():
            continue
        st, cpu = state()
        if mark is None:
            mark = cpu
        if st == "S" or cpu - mark > hz / 2:
            if st != "S":
                spun += 1
            mark = None
            for _ in range(4):
                take()
        continue
    r, w, _ = select.select([fo], [fi], [])
    if r and not take():
        break
    if w:
        feed()
_, status, ru = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), ru.ru_maxrss, spun)
EOF
cat "$T/big.jsonl" "$T/big.jsonl" >"$T/big2.jsonl"
if [ "${RAG_VALGRIND:-0}" = 1 ] || ldd "$BIN/rag-kw" 2>/dev/null | grep -q 'libasan'; then
	skip "a slow reader: peak memory and CPU (not measured under valgrind or AddressSanitizer)"
else
	for m in fast slow; do
		set -- $(python3 "$T/reader.py" "$T/big2.jsonl" "$T/kw.$m" $m "$BIN/rag-kw" -q -m token_f1,rougeL \
			--max-memory 4194304)
		is "${1:-}" 0 "rag-kw --max-memory 4 MiB, a $m reader: exit 0"
		eval "peak_$m=\${2:-0} spun_$m=\${3:-0}"
	done
	is "$(nlines "$T/kw.slow")" "$(nlines "$T/big2.jsonl")" "a slow reader: one line out per line in"
	check "a slow reader: the same output as a fast one" cmp -s "$T/kw.fast" "$T/kw.slow"
	is "$spun_slow" 0 "a slow reader: the tool waits for it without spinning"
	check "a slow reader: the tool's peak ($peak_slow KiB) is the fast run's ($peak_fast KiB) + at most the budget" \
		test "$peak_slow" -le $((peak_fast + 4096))
fi

# ---------------------------------------------------------------- rag-report's page
# The page holds every record, but rag-report spools them to a temporary file as they come:
# its peak resident set stays near its start-up size whatever the run's length. Holding the
# 27,000 records (10 MB) as jq values took 105 MB; the spooling tool 14 MB.
cat "$T/big.jsonl" "$T/big.jsonl" "$T/big.jsonl" >"$T/big3.jsonl"
if [ "${RAG_VALGRIND:-0}" = 1 ] || ldd "$BIN/rag-report" 2>/dev/null | grep -q 'libasan'; then
	skip "rag-report's peak memory (not measured under valgrind or AddressSanitizer)"
	# the page's content still checked, on fewer records
	head -n 2000 "$T/big3.jsonl" >"$T/big3.part" && mv "$T/big3.part" "$T/big3.jsonl"
	run rag rag-report -q -r faithfulness=0.5 -o "$T/big3.html" "$T/big3.jsonl"
	is "$RC" 0 "rag-report on 2,000 records: exit 0"
else
	python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
		"$BIN/rag-report" -q -r faithfulness=0.5 -o "$T/big3.html" "$T/big3.jsonl" >"$T/rss"
	read -r rc kb <"$T/rss"
	is "$rc" 0 "rag-report on 27,000 records ($(wc -c <"$T/big3.jsonl" | tr -d ' ') bytes): exit 0"
	check "and its peak memory is under 40 MB, not the records held ($kb KiB)" test "$kb" -lt 40960
fi
N3=$(nlines "$T/big3.jsonl")
sed -n 's/.*<script type="application\/json" id="rag-data">\(.*\)<\/script>/\1/p' "$T/big3.html" >"$T/big3.json"
is "$(jq -r '.records | "\(length) \(.[0].id) \(.[-1].id) \(.[-1].at)"' "$T/big3.json")" \
	"$N3 m00001 $(tail -n 1 "$T/big3.jsonl" | jq -r .id) $T/big3.jsonl:$N3" "every record is in the page, in order"
jq -c '[.id, .question, .answer, .reference, .contexts]' "$T/big3.jsonl" >"$T/big3.want"
jq -c '.records[] | [.id, .q, .a, .ref, .ctx]' "$T/big3.json" >"$T/big3.got"
check "each with its question, answer, reference and contexts" cmp -s "$T/big3.want" "$T/big3.got"
# ---------------------------------------------------------------- bad values
run rag rag-ap --max-memory 1000 </dev/null
is "$RC" 2 "--max-memory under 65536 is a usage error"
like "$(cat "$ERR")" 'must be an integer from 65536' "and says the range"
printf 'stream:\n  max_memory: 10\n' >"$T/bad.yaml"
run rag rag-ap -c "$T/bad.yaml" </dev/null
is "$RC" 2 "stream.max_memory under 65536 in the config is a usage error"

done_testing
