#!/usr/bin/env bash
# The fuzzing bench: builds every cargo-fuzz target and runs each one after the other for a
# while, then prints per target how many inputs ran and whether it crashed. Not run in CI.
#
#   fuzz/run.sh                      # every target, 300 s each
#   FUZZ_SECONDS=1800 fuzz/run.sh extract tidy
#
# Settings (environment):
#   FUZZ_SECONDS   seconds per target (default 300)
#   FUZZ_TIMEOUT   seconds one input may take before it is a finding (default 10)
#   FUZZ_RSS_MB    memory limit per process in MiB before it is a finding (default 2048)
#   FUZZ_MAX_LEN   longest input in bytes (default 16384)
#   FUZZ_SANITIZER none (default) or address
#
# Findings land in fuzz/artifacts/<target>/ (crash-*, timeout-*, oom-*); the corpus grows in
# fuzz/corpus/<target>/ (seeded from fuzz/seeds/<target>/); logs in fuzz/logs/<target>.log.
set -euo pipefail

cd "$(dirname "$0")"

seconds="${FUZZ_SECONDS:-300}"
timeout="${FUZZ_TIMEOUT:-10}"
rss_mb="${FUZZ_RSS_MB:-2048}"
max_len="${FUZZ_MAX_LEN:-16384}"
sanitizer="${FUZZ_SANITIZER:-none}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# cargo fuzz passes nightly-only flags (-Z sanitizer coverage options, -Cpasses=sancov-module)
# to rustc. Only the stable toolchain is installed here, and RUSTC_BOOTSTRAP=1 lets it accept
# them. `--sanitizer none` by default: gleaner is safe Rust, so AddressSanitizer mostly costs
# throughput (instrumented loads and stores); FUZZ_SANITIZER=address should also work on
# x86_64 Linux, whose stable standard library ships the ASan runtime (not used so far).
# `-O --debug-assertions`: optimized code for speed, with overflow checks and debug
# assertions kept, so arithmetic bugs still crash.
export RUSTC_BOOTSTRAP=1
build_flags=(-O --debug-assertions --sanitizer "$sanitizer")

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

cargo fuzz build "${build_flags[@]}"

mkdir -p logs
declare -A executions outcome
failed=0
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    if [ -d "seeds/$target" ]; then
        cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
    fi
    touch "logs/$target.start"
    echo "== $target: ${seconds}s" >&2
    set +e
    cargo fuzz run "${build_flags[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
        -max_len="$max_len" -print_final_stats=1 >"logs/$target.log" 2>&1
    status=$?
    set -e
    found=$(find "artifacts/$target" -type f -newer "logs/$target.start" | tr '\n' ' ')
    executions[$target]=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$target.log" \
        | grep -o '[0-9]*$' | tail -1)
    if [ "$status" -eq 0 ] && [ -z "$found" ]; then
        outcome[$target]="no crash"
    else
        outcome[$target]="FOUND (exit $status): $found"
        failed=1
    fi
done

printf '\n%-10s %12s  %s\n' target executions outcome
for target in "${targets[@]}"; do
    printf '%-10s %12s  %s\n' "$target" "${executions[$target]:-?}" "${outcome[$target]}"
done
if [ "$failed" -ne 0 ]; then
    echo "findings are in fuzz/artifacts/; minimize with: RUSTC_BOOTSTRAP=1 cargo fuzz tmin ${build_flags[*]} <target> <file>" >&2
fi
exit "$failed"
