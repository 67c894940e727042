# The 10-line Python benchmark of docs/executors.md (kept identical; exec_executor_test runs it).
import hashlib, json, os, time
n = int(os.environ["FLEETSWEEP_PARAM_N"]); unroll = int(os.environ["FLEETSWEEP_PARAM_UNROLL"])
def emit(**record): print(json.dumps(record), flush=True)
def work(): return sum(i * i for i in range(0, n, unroll))  # the parameters change what runs
for _ in range(5):
    t0 = time.perf_counter(); result = work()
    emit(type="sample", metric="time_ms", value=(time.perf_counter() - t0) * 1e3)
emit(type="check", passed=result == sum(i * i for i in range(0, n, unroll)), max_rel_error=0.0)
emit(type="fingerprint", value=hashlib.sha256(f"sum-squares;step={unroll}".encode()).hexdigest()[:16])
emit(type="info", key="python", value=os.sys.version.split()[0])
