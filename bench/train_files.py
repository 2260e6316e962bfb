#!/usr/bin/env python3
"""Many small files: iolens train's data set and data loader against fio on the same kind of
file set, making the files and reading them.

iolens: `iolens train cosmoflow` (one sample per file) over N files of about --file-size bytes
(cosmoflow's sizes scaled with --scale: a normal spread of 2.5 % around the mean), made with
`--create-only`, then read by A accelerators x 4 reader threads with a step time of 1 µs, so
that the loader, not the "accelerator", sets the pace.

fio: the closest job, one job thread per iolens reader thread (`numjobs` = A x 4, `--thread`),
each job its share of the files: `nrfiles`, `filesize`, `bs` = the file size (one read per
file, as iolens reads each file in one read), psync, `rw=read`, made with `create_only=1`; read
with `file_service_type=random` and `openfiles=4` (the job the comparison is named for), and
with `file_service_type=sequential` (fio's cheapest file order, so the stricter comparison).
`invalidate=0` and `fadvise_hint=0`: fio makes no per-file cache calls that iolens does not make.

Both buffered (tmpfs has no O_DIRECT: iolens `--buffered`, fio `direct=0`); the same files, size
and reader threads. iolens makes its files with one thread, fio with its job threads; iolens
has one accelerator thread per accelerator besides its readers (it sleeps unless the step's end
makes it wait).

Each round removes both file sets (not measured), makes them (the tools' order alternating from
round to round), then reads them (alternating). Each run's CPU is the user + system time of
that child process alone (all its threads), from wait4; its wall time from start to exit. Every
run is checked: the files it made, or the reads and bytes it reported. Prints medians over the
rounds: files per second, CPU seconds per 1,000 files, and iolens's ratios to each fio row (the
median of the per-round ratios, with their range), and the host's load average around the runs.

Usage: bench/train_files.py [--files 100000] [--file-size 2828] [--accelerators 4]
                            [--rounds 5] [--dir /dev/shm] [--out FILE]
Needs: fio on PATH and a release build of iolens (cargo build --release).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLENS = os.path.join(ROOT, "target", "release", "iolens")
COSMOFLOW_SAMPLE = 2_828_486
READERS = 4


def measured(cmd):
    """Runs cmd; returns (wall s, user s, system s, 1-minute load before, stdout, exit code)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if p.returncode not in (0, 1):
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{errors}")
    return {"wall": wall, "user": ru.ru_utime, "sys": ru.ru_stime, "load": load, "out": text}


def folder_files(d):
    """(files, bytes) of the regular files under d."""
    n = b = 0
    for root, _, names in os.walk(d):
        for name in names:
            n += 1
            b += os.stat(os.path.join(root, name)).st_size
    return n, b


def check(cond, what):
    if not cond:
        raise SystemExit(f"check failed: {what}")


def median_range(v):
    return statistics.median(v), min(v), max(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--file-size", type=int, default=2828)
    ap.add_argument("--accelerators", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default="/dev/shm")
    ap.add_argument("--out")
    a = ap.parse_args()
    jobs = a.accelerators * READERS
    files = a.files // jobs * jobs
    scale = a.file_size / COSMOFLOW_SAMPLE
    base = os.path.join(a.dir, f"iolens-train-bench-{os.getpid()}")
    ours, theirs = os.path.join(base, "iolens"), os.path.join(base, "fio")
    iolens = [
        IOLENS, "train", "cosmoflow", "--dir", ours, "--files", str(files),
        "--scale", f"{scale:.9f}", "--buffered", "--step-time", "1us",
        "--accelerators", str(a.accelerators), "--output-format", "json",
    ]
    fio = [
        "fio", "--name=files", f"--directory={theirs}", "--rw=read", "--ioengine=psync",
        "--direct=0", f"--nrfiles={files // jobs}", f"--filesize={a.file_size}",
        f"--bs={a.file_size}", f"--numjobs={jobs}", "--thread", "--group_reporting",
        "--invalidate=0", "--fadvise_hint=0", "--output-format=json",
    ]
    fio_random = fio + ["--file_service_type=random", f"--openfiles={READERS}"]
    fio_seq = fio + ["--file_service_type=sequential", "--openfiles=1"]

    def iolens_made(r):
        n, b = folder_files(ours)
        check(n == files, f"iolens made {n} files, expected {files}")
        r["bytes"] = b

    def fio_made(r):
        n, b = folder_files(theirs)
        check(n == files and b == files * a.file_size,
              f"fio made {n} files of {b} B, expected {files} of {a.file_size} B")
        r["bytes"] = b

    def iolens_read(r):
        d = json.loads(r["out"])
        check(d["reads"] == files and d["bytes_read"] == d["dataset_bytes"],
              f"iolens read {d['reads']} files, {d['bytes_read']} of {d['dataset_bytes']} B")
        r["bytes"] = d["bytes_read"]

    def fio_read(r):
        rd = json.loads(r["out"])["jobs"][0]["read"]
        check(rd["total_ios"] == files and rd["io_bytes"] == files * a.file_size,
              f"fio read {rd['total_ios']} times, {rd['io_bytes']} B; expected {files} reads "
              f"of {a.file_size} B")
        r["bytes"] = rd["io_bytes"]

    make = [("iolens", iolens + ["--create-only"], iolens_made),
            ("fio", fio_random + ["--create_only=1"], fio_made)]
    read = [("iolens", iolens, iolens_read),
            ("fio random", fio_random, fio_read),
            ("fio sequential", fio_seq, fio_read)]
    rows = {(phase, name): [] for phase, runs in (("make", make), ("read", read))
            for name, _, _ in runs}
    try:
        for rnd in range(a.rounds):
            shutil.rmtree(base, ignore_errors=True)
            os.makedirs(ours)
            os.makedirs(theirs)
            for phase, runs in (("make", make), ("read", read)):
                k = rnd % len(runs)
                for name, cmd, ok in runs[k:] + runs[:k]:
                    r = measured(cmd)
                    ok(r)
                    rows[(phase, name)].append(r)
        loads = [r["load"] for v in rows.values() for r in v]
        lm, llo, lhi = median_range(loads)
        lines = [
            f"{files:,} files of {a.file_size:,} B on {a.dir} (iolens: cosmoflow's sizes scaled, "
            f"mean {rows[('read', 'iolens')][0]['bytes'] / files:,.1f} B), buffered; "
            f"{a.accelerators} accelerators x {READERS} readers against {jobs} fio psync jobs "
            f"(threads); {a.rounds} rounds, medians; 1-minute load average {lm:.1f} "
            f"({llo:.1f}-{lhi:.1f}) on {os.cpu_count()} CPUs",
            "",
            "| phase | tool | files/s | CPU s per 1,000 files | user | system |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for (phase, name), v in rows.items():
            fps = statistics.median(files / r["wall"] for r in v)
            cpu = statistics.median(1e3 * (r["user"] + r["sys"]) / files for r in v)
            usr = statistics.median(1e3 * r["user"] / files for r in v)
            sys_ = statistics.median(1e3 * r["sys"] / files for r in v)
            lines.append(f"| {phase} | {name} | {fps:,.0f} | {cpu:.4f} | {usr:.4f} | {sys_:.4f} |")
        lines += ["", "| phase | iolens against | files/s ratio (range) | CPU ratio (range) |",
                  "|---|---|---:|---:|"]
        for phase, runs in (("make", make), ("read", read)):
            ours_v = rows[(phase, "iolens")]
            for name, _, _ in runs[1:]:
                theirs_v = rows[(phase, name)]
                speed = [t["wall"] / o["wall"] for o, t in zip(ours_v, theirs_v)]
                cpu = [(o["user"] + o["sys"]) / (t["user"] + t["sys"])
                       for o, t in zip(ours_v, theirs_v)]
                s, slo, shi = median_range(speed)
                c, clo, chi = median_range(cpu)
                lines.append(f"| {phase} | {name} | {s:.2f} ({slo:.2f}-{shi:.2f}) | "
                             f"{c:.2f} ({clo:.2f}-{chi:.2f}) |")
        text = "\n".join(lines)
        print(text)
        if a.out:
            with open(a.out, "a") as f:
                f.write(f"\n## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{text}\n")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
