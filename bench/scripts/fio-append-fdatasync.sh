#!/usr/bin/env bash
# Baseline for Walden's one-writer SYNCED rate: what fio gets for write + fdatasync of small
# sequential writes on the same disk, with one thread (ioengine=psync, fdatasync=1).
#
#   append:    a new file that grows with every write (fallocate=none): each fdatasync must also
#              commit the file's new size and blocks, as a naive WAL does.
#   overwrite: the file is laid out (written) first and then rewritten (overwrite=1): each
#              fdatasync commits data only, as with Walden's prepared segments.
#
# Usage: bench/scripts/fio-append-fdatasync.sh DIR [RUNTIME_SECONDS]
#   DIR must be on the disk under test (not tmpfs); the script creates and removes its files there.
#   RUNTIME_SECONDS per job, default 10. SIZE (env) caps each file, default 32M.
#
# The bar (design brief section 7): Walden one writer, SYNCED, 128 B >= 1.0x the "append bs=128"
# IOPS printed here, measured on the same disk in the same session.
set -euo pipefail

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
dir=$1
runtime=${2:-10}
size=${SIZE:-32M}

if ! command -v fio >/dev/null 2>&1; then
    echo "fio is not installed. Install it with:  apt-get install -y fio   (Debian/Ubuntu, as root)" >&2
    echo "                                   or:  dnf install -y fio       (Fedora/RHEL)" >&2
    exit 3
fi
if [[ ! -d "$dir" ]]; then
    echo "no such directory: $dir" >&2
    exit 2
fi
fstype=$(stat -f -c %T "$dir")
if [[ "$fstype" == "tmpfs" || "$fstype" == "ramfs" ]]; then
    echo "warning: $dir is on $fstype; fdatasync there costs nothing and this is no disk baseline" >&2
fi

workdir=$(mktemp -d "$dir/fio-baseline.XXXXXX")
trap 'rm -rf "$workdir"' EXIT

echo "fio $(fio --version | sed 's/^fio-//') in $dir ($fstype), ioengine=psync rw=write fdatasync=1 numjobs=1," \
    "size=$size, runtime=${runtime}s per job"
printf '%-10s %-9s %6s %12s %16s\n' "pattern" "engine" "bs" "IOPS" "us per write+sync"

run_job() {
    local pattern=$1 bs=$2 engine=${3:-psync}
    local extra=(--fallocate=none)
    if [[ "$pattern" == "overwrite" ]]; then
        extra=(--overwrite=1)
    fi
    # Terse output version 3: field 49 is the write IOPS.
    local iops
    iops=$(fio --name="$pattern-$bs" --directory="$workdir" --ioengine="$engine" --iodepth=1 --rw=write --bs="$bs" \
        --fdatasync=1 --size="$size" --runtime="$runtime" --numjobs=1 --unlink=1 "${extra[@]}" \
        --output-format=terse --terse-version=3 | tail -n 1 | cut -d';' -f49)
    if [[ -z "$iops" || "$iops" == "0" ]]; then
        printf '%-10s %-9s %6s %12s %16s\n' "$pattern" "$engine" "$bs" "failed" "-"
        return
    fi
    printf '%-10s %-9s %6s %12s %16.1f\n' "$pattern" "$engine" "$bs" "$iops" "$(awk -v i="$iops" 'BEGIN { print 1e6 / i }')"
}

for bs in 128 4k; do
    run_job append "$bs"
done
for bs in 128 4k; do
    run_job overwrite "$bs"
done
# The io_uring engine, one write then fdatasync per operation: the per-operation baseline for
# Walden's io_uring backend.
for bs in 128 4k; do
    run_job append "$bs" io_uring
    run_job overwrite "$bs" io_uring
done
echo "bar: Walden SyncedAppendBenchmark.appendSynced -t 1 (128 B) >= 1.0x the 'append 128' IOPS above"
