//! Scale-out: ranks launched by `mpirun` or by `IOLENS_RANK`/`IOLENS_SIZE` meet at rank 0,
//! which prints one result in fio's client/server layout; failures (a killed rank, a wrong
//! token, no coordinator) end every rank with a clear error; `iolens merge`; ranks in separate
//! network namespaces.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

/// A port that was free a moment ago on `ip`.
/// A loopback port for a coordinator, for the whole life of the test: taken from a range
/// outside the kernel's ephemeral ports (so no connection of any program is given it), under
/// a lock per port across every test process on the machine (so no two tests can ever share
/// it), and free when taken. The lock is held until the test drops the reservation.
struct Port {
    port: u16,
    _lock: Flock,
}

fn reserved_port() -> Port {
    use std::os::fd::AsRawFd;
    // 20000-29999 lies below Linux's default ephemeral range (32768-60999).
    let start = 20_000 + (std::process::id() % 10_000) as u16;
    for k in 0..10_000u16 {
        let port = 20_000 + (start - 20_000 + k) % 10_000;
        let lock = flock_file_of(&format!("port-{port}"));
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(lock.0.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            continue;
        }
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Port { port, _lock: lock };
        }
    }
    panic!("no free loopback port in 20000-29999 for a coordinator");
}

/// An address where nothing ever answers: a socket bound to it that never listens refuses
/// every connection for as long as the guard lives, and nothing else can bind it meanwhile.
struct DeadAddr {
    addr: String,
    _fd: std::os::fd::OwnedFd,
}

fn dead_addr() -> DeadAddr {
    use std::os::fd::FromRawFd;
    // SAFETY: socket, bind and getsockname on a descriptor this function owns; the address
    // structures are plain data of the sizes passed.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let fd = std::os::fd::OwnedFd::from_raw_fd(fd);
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        use std::os::fd::AsRawFd;
        let rc = libc::bind(
            fd.as_raw_fd(),
            (&sa as *const libc::sockaddr_in).cast(),
            len,
        );
        assert_eq!(
            rc,
            0,
            "bind 127.0.0.1:0: {}",
            std::io::Error::last_os_error()
        );
        let mut got: libc::sockaddr_in = std::mem::zeroed();
        let mut glen = len;
        let rc = libc::getsockname(
            fd.as_raw_fd(),
            (&mut got as *mut libc::sockaddr_in).cast(),
            &mut glen,
        );
        assert_eq!(rc, 0, "getsockname: {}", std::io::Error::last_os_error());
        DeadAddr {
            addr: format!("127.0.0.1:{}", u16::from_be(got.sin_port)),
            _fd: fd,
        }
    }
}

fn null_job(runtime_s: u32) -> Vec<String> {
    [
        "--name=n",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        &format!("--runtime={runtime_s}"),
        "--time_based",
        "--output-format=json+",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Starts one rank by IOLENS_RANK/IOLENS_SIZE.
fn rank(
    r: u32,
    size: u32,
    coord: &str,
    token: &str,
    args: &[String],
    extra: &[(&str, &str)],
) -> Child {
    let mut c = iolens();
    c.args(args)
        .env("IOLENS_RANK", r.to_string())
        .env("IOLENS_SIZE", size.to_string())
        .env("IOLENS_COORDINATOR", coord)
        .env("IOLENS_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    c.spawn().expect("spawning a rank")
}

/// Waits for a child, killing it after `limit` (a hang fails the test).
fn wait_within(c: Child, limit: Duration, what: &str) -> (Output, Duration) {
    let start = Instant::now();
    let pid = c.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(c.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(o) => (o.expect("waiting for a rank"), start.elapsed()),
        Err(_) => {
            // SAFETY: kill on the pid of our own child.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{what} did not exit within {limit:?}");
        }
    }
}

fn client_stats(v: &Value) -> Vec<&Value> {
    v["client_stats"]
        .as_array()
        .expect("a client_stats array")
        .iter()
        .collect()
}

fn p99(j: &Value, dir: &str) -> u64 {
    j[dir]["clat_ns"]["percentile"]["99.000000"]
        .as_u64()
        .unwrap_or_else(|| panic!("no clat p99 in {}", j[dir]["clat_ns"]))
}

/// Checks rank 0's one result: `n` per-rank entries and "All clients" adding up, p99 within the
/// ranks' p99s, job_start within `skew_ms`.
fn check_clients(stdout_text: &str, dir: &str, n: usize, skew_ms: u64) -> Value {
    let v: Value = serde_json::from_str(stdout_text.trim()).unwrap_or_else(|e| {
        panic!("stdout must be exactly one JSON document ({e}):\n{stdout_text}")
    });
    let cs = client_stats(&v);
    let ranks: Vec<&&Value> = cs
        .iter()
        .filter(|j| j["jobname"] != "All clients")
        .collect();
    let all: Vec<&&Value> = cs
        .iter()
        .filter(|j| j["jobname"] == "All clients")
        .collect();
    assert_eq!(
        ranks.len(),
        n,
        "expected {n} per-rank entries, got {}",
        ranks.len()
    );
    assert_eq!(all.len(), 1, "expected one 'All clients' entry");
    let mut seen: Vec<u64> = ranks
        .iter()
        .map(|j| j["rank"].as_u64().expect("rank"))
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..n as u64).collect::<Vec<_>>(), "ranks present");
    for j in &ranks {
        assert!(
            j["hostname"].as_str().is_some_and(|h| !h.is_empty()),
            "hostname in {j}"
        );
    }
    let sum: u64 = ranks
        .iter()
        .map(|j| j[dir]["total_ios"].as_u64().unwrap())
        .sum();
    let total = all[0][dir]["total_ios"].as_u64().unwrap();
    assert_eq!(total, sum, "All clients total_ios must be the ranks' sum");
    assert!(sum > 0, "the ranks did I/O");
    let p: Vec<u64> = ranks.iter().map(|j| p99(j, dir)).collect();
    let pa = p99(all[0], dir);
    assert!(
        pa >= *p.iter().min().unwrap() && pa <= *p.iter().max().unwrap(),
        "All clients p99 {pa} must lie within the ranks' p99s {p:?}"
    );
    let starts: Vec<u64> = ranks
        .iter()
        .map(|j| j["job_start"].as_u64().expect("job_start"))
        .collect();
    let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
    assert!(
        spread <= skew_ms,
        "job_start spread {spread} ms > {skew_ms} ms: {starts:?}"
    );
    let jobs = v["jobs"].as_array().expect("merged jobs");
    assert_eq!(jobs.len(), 1, "one merged entry per job name");
    assert_eq!(jobs[0][dir]["total_ios"].as_u64(), Some(sum));
    v
}

#[test]
fn three_ranks_by_iolens_rank_give_one_result() {
    let port = reserved_port();
    let coord = format!("127.0.0.1:{}", port.port);
    let args = null_job(1);
    let others: Vec<Child> = (1..3)
        .map(|r| rank(r, 3, &coord, "t0k", &args, &[]))
        .collect();
    let zero = rank(0, 3, &coord, "t0k", &args, &[]);
    let (o, _) = wait_within(zero, Duration::from_secs(60), "rank 0");
    assert!(o.status.success(), "rank 0 failed: {}", stderr(&o));
    for (i, c) in others.into_iter().enumerate() {
        let (oi, _) = wait_within(c, Duration::from_secs(30), "a rank");
        assert!(
            oi.status.success(),
            "rank {} failed: {}",
            i + 1,
            stderr(&oi)
        );
        assert!(
            oi.stdout.is_empty(),
            "rank {} printed on stdout: {}",
            i + 1,
            stdout(&oi)
        );
    }
    check_clients(&stdout(&o), "read", 3, 100);
    assert!(
        stderr(&o).contains("start skew"),
        "rank 0 reports the skew: {}",
        stderr(&o)
    );
}

/// Files are laid out before the synchronized start: rank 1 has 1 GiB to write first, rank 0
/// nothing, and their jobs still start together (job_start is when a rank's I/O began).
#[test]
fn ranks_lay_out_their_files_before_the_synchronized_start() {
    let d = TempDir::new("cluster-layout");
    // Rank 0's file is there already (sparse is enough: it is long enough not to be laid out).
    std::fs::File::create(d.join("data.0"))
        .and_then(|f| f.set_len(1 << 30))
        .expect("creating rank 0's file");
    let port = reserved_port();
    let coord = format!("127.0.0.1:{}", port.port);
    let args: Vec<String> = [
        "--name=l",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--fallocate=none",
        "--filename=data.$rank",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let start = |r: u32| {
        let mut c = iolens();
        c.current_dir(&d.0)
            .args(&args)
            .env("IOLENS_RANK", r.to_string())
            .env("IOLENS_SIZE", "2")
            .env("IOLENS_COORDINATOR", &coord)
            .env("IOLENS_TOKEN", "t0k")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c.spawn().expect("spawning a rank")
    };
    let one = start(1);
    let zero = start(0);
    let (o, _) = wait_within(zero, Duration::from_secs(120), "rank 0");
    let (o1, _) = wait_within(one, Duration::from_secs(30), "rank 1");
    assert!(o.status.success(), "rank 0 failed: {}", stderr(&o));
    assert!(o1.status.success(), "rank 1 failed: {}", stderr(&o1));
    let laid = std::fs::metadata(d.join("data.1"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert_eq!(
        laid,
        1 << 30,
        "rank 1 lays out data.1 (1 GiB): found {laid} bytes"
    );
    // The layout's last write is before rank 1's job_start: it laid out before the start, not
    // during its run (the run only reads). This holds however busy the machine is; the start
    // spread is checked too, with room for a rank whose process waited on a disk still busy
    // writing back that 1 GiB (686 ms seen beside stress-ng and the other tests), where laying
    // out in the run would cost seconds.
    let modified_ms = std::fs::metadata(d.join("data.1"))
        .and_then(|m| m.modified())
        .expect("data.1's mtime")
        .duration_since(std::time::UNIX_EPOCH)
        .expect("mtime after the epoch")
        .as_millis() as u64;
    let v = check_clients(&stdout(&o), "read", 2, 1_000);
    let rank1 = client_stats(&v)
        .into_iter()
        .find(|j| j["rank"] == 1 && j["jobname"] != "All clients")
        .expect("rank 1's entry");
    let start1 = rank1["job_start"].as_u64().expect("rank 1's job_start");
    assert!(
        modified_ms <= start1,
        "rank 1 laid out data.1 before its job_start: last write at {modified_ms} ms, job_start {start1} ms"
    );
}

#[test]
fn mpirun_four_ranks_give_one_result() {
    let ok = Command::new("mpirun")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if skip_unless(ok, "mpirun (Debian's openmpi-bin) is not installed") {
        return;
    }
    let dir = TempDir::new("mpi");
    let port = reserved_port();
    let file = format!("{}/data.$rank", dir.0.display());
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        "4",
        "-x",
        "IOLENS_COORDINATOR",
    ])
    .arg(env!("CARGO_BIN_EXE_iolens"))
    .args([
        "--name=m",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=2m",
        &format!("--filename={file}"),
        "--output-format=json+",
    ])
    .env("IOLENS_COORDINATOR", format!("127.0.0.1:{}", port.port))
    .env_remove("IOLENS_TOKEN");
    let o = output_within(c, Duration::from_secs(120));
    assert!(
        o.status.success(),
        "mpirun failed: {}\n{}",
        stderr(&o),
        stdout(&o)
    );
    let v = check_clients(&stdout(&o), "write", 4, 100);
    for r in 0..4 {
        let f = dir.join(&format!("data.{r}"));
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        assert_eq!(
            len,
            2 << 20,
            "rank {r} wrote its own file {} ($rank substituted)",
            f.display()
        );
    }
    let bytes = v["jobs"][0]["write"]["io_bytes"].as_u64();
    assert_eq!(bytes, Some(4 * (2 << 20)), "four ranks' bytes add up");
}

/// `iolens ARGS` as 2 ranks under mpirun, meeting at a reserved loopback port: the output.
/// None when mpirun is missing (and skipping is allowed).
fn mpirun_two(args: &[&str]) -> Option<Output> {
    let ok = Command::new("mpirun")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if skip_unless(ok, "mpirun (Debian's openmpi-bin) is not installed") {
        return None;
    }
    let port = reserved_port();
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        "2",
        "-x",
        "IOLENS_COORDINATOR",
    ])
    .arg(env!("CARGO_BIN_EXE_iolens"))
    .args(args)
    .env("IOLENS_COORDINATOR", format!("127.0.0.1:{}", port.port))
    .env_remove("IOLENS_TOKEN");
    Some(output_within(c, Duration::from_secs(180)))
}

/// `a` and `b` equal to the last few bits of a double (sums in another order).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn mpirun_two_ranks_of_train_merge_au_as_mean_and_minimum_and_add_throughput() {
    let dir = TempDir::new("mpi-train");
    // Each rank makes its own data set in DIR/$rank: 16 files of 1,251 resnet50 samples of
    // 1,147 B (--scale 0.01); 2 accelerators x 8 files = 25 steps of 400 samples each.
    let base = format!("{}/$rank", dir.0.display());
    let args = [
        "train",
        "resnet50",
        "--dir",
        &base,
        "--files",
        "16",
        "--scale",
        "0.01",
        "--step-time",
        "10ms",
        "--accelerators",
        "2",
        "--output-format",
        "json",
    ];
    let Some(o) = mpirun_two(&args) else { return };
    let v = json_of(&stdout(&o));
    let ranks = v["ranks"].as_array().expect("a row per rank");
    assert_eq!(
        ranks.iter().map(|r| r["rank"].as_u64()).collect::<Vec<_>>(),
        [Some(0), Some(1)],
        "ranks 0 and 1 reported: {v}"
    );
    // The merge, from the per-rank figures of the same document.
    let m = &v["merged"];
    let accels: Vec<f64> = ranks
        .iter()
        .flat_map(|r| {
            r["run"]["per_accelerator"]
                .as_array()
                .expect("accelerators")
        })
        .map(|a| num(&a["au_percent"]))
        .collect();
    assert_eq!(accels.len(), 4, "2 ranks x 2 accelerators: {v}");
    assert_eq!(m["accelerators"].as_u64(), Some(4));
    let mean = accels.iter().sum::<f64>() / 4.0;
    let lowest = accels.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        close(num(&m["au_mean_percent"]), mean),
        "merged AU {} must be the mean of the 4 accelerators' {accels:?} = {mean}",
        m["au_mean_percent"]
    );
    assert!(
        close(num(&m["au_min_percent"]), lowest),
        "lowest AU {} must be the least of {accels:?}",
        m["au_min_percent"]
    );
    let rank_means: Vec<f64> = ranks
        .iter()
        .map(|r| num(&r["run"]["total"]["au_mean_percent"]))
        .collect();
    let min_rank = if rank_means[1] < rank_means[0] { 1 } else { 0 };
    assert_eq!(
        (m["min_rank"].as_u64(), num(&m["au_min_rank_percent"])),
        (Some(min_rank), rank_means[min_rank as usize]),
        "the lowest rank of the ranks' mean AU {rank_means:?}"
    );
    for (what, field) in [("samples/s", "samples_per_s"), ("bytes/s", "bytes_per_s")] {
        let sum: f64 = ranks.iter().map(|r| num(&r["run"]["total"][field])).sum();
        assert!(
            close(num(&m[field]), sum),
            "merged {what} {} must be the ranks' sum {sum}",
            m[field]
        );
    }
    let pass = num(&m["au_mean_percent"]) >= 90.0 - 1e-9;
    assert_eq!(
        m["pass"].as_bool(),
        Some(pass),
        "judged on the mean AU {mean} against 90 %"
    );
    assert_eq!(
        o.status.success(),
        pass,
        "exit 0 exactly when the merged run passes: {}",
        stderr(&o)
    );
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(
            num(&r["run"]["bytes_read"]) as u64,
            2 * 25 * 400 * 1147,
            "rank {i} read 2 accelerators x 25 steps x 400 samples of 1,147 B: {r}"
        );
        let files = std::fs::read_dir(dir.join(&format!("{i}/resnet50")))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(files, 16, "rank {i} made its data set in {i}/ ($rank)");
    }
}

/// A run that fails its target fails the launcher: rank 0 exits 1 on the merged FAIL, the
/// other rank 0 (it ran and sent its result), and mpirun returns the exit status of the
/// lowest rank that exited non-zero (Open MPI's mpirun(1), "Exit status"), so it exits 1.
#[test]
fn mpirun_exits_1_when_the_merged_train_run_fails() {
    let dir = TempDir::new("mpi-train-fail");
    // A step of 1 µs: no loader reads 400 samples of a batch in that time, so each rank's
    // accelerators wait on their data and the mean AU is far below resnet50's 90 %.
    let base = format!("{}/$rank", dir.0.display());
    let args = [
        "train",
        "resnet50",
        "--dir",
        &base,
        "--files",
        "16",
        "--scale",
        "0.01",
        "--step-time",
        "1us",
        "--accelerators",
        "2",
        "--output-format",
        "json",
    ];
    let Some(o) = mpirun_two(&args) else { return };
    let v = json_of(&stdout(&o));
    let m = &v["merged"];
    assert_eq!(
        (m["pass"].as_bool(), v["ranks"].as_array().map(Vec::len)),
        (Some(false), Some(2)),
        "resnet50 at 1 µs a step over 2 ranks: expected a merged FAIL of both ranks: {m}"
    );
    assert!(
        num(&m["au_mean_percent"]) < 90.0,
        "mean AU {} below 90 %",
        m["au_mean_percent"]
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "mpirun's exit status for a failed run: expected rank 0's 1: {}",
        stderr(&o)
    );
}

#[test]
fn mpirun_two_ranks_of_checkpoint_write_their_shares_and_merge_the_slowest() {
    let dir = TempDir::new("mpi-ckpt");
    // llama3-8b at --scale 1e-5: 105 GiB x 1e-5 / 8 = 140,929 B per process (rounded); 2 ranks write
    // 4 processes' shares each.
    let d = dir.0.display().to_string();
    let args = [
        "checkpoint",
        "llama3-8b",
        "--dir",
        &d,
        "--scale",
        "1e-5",
        "--repeat",
        "2",
        "--bs",
        "64k",
        "--keep",
        "--output-format",
        "json",
    ];
    let Some(o) = mpirun_two(&args) else { return };
    assert!(
        o.status.success(),
        "mpirun failed: {}\n{}",
        stderr(&o),
        stdout(&o)
    );
    let v = json_of(&stdout(&o));
    let ranks = v["ranks"].as_array().expect("a row per rank");
    let shares: Vec<(u64, u64)> = ranks
        .iter()
        .map(|r| {
            let s = &r["share"];
            (
                s["first_rank"].as_u64().unwrap(),
                s["ranks"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shares,
        [(0, 4), (4, 4)],
        "rank 0 writes processes 0-3, rank 1 4-7: {v}"
    );
    let per = 140_929u64;
    let m = &v["merged"];
    assert_eq!(
        (m["plan"]["ranks"].as_u64(), m["bytes"].as_u64()),
        (Some(8), Some(8 * per)),
        "every process of the model, {per} B each: {m}"
    );
    let runs = m["runs"].as_array().expect("merged runs");
    assert_eq!(runs.len(), 2, "--repeat 2");
    for phase in ["write", "read"] {
        let mut durations = Vec::new();
        for (k, run) in runs.iter().enumerate() {
            let slowest = ranks
                .iter()
                .map(|r| num(&r["share"]["runs"][k][phase]["duration_s"]))
                .fold(0.0, f64::max);
            let every: Vec<f64> = ranks
                .iter()
                .flat_map(|r| {
                    r["share"]["runs"][k][phase]["rank_seconds"]
                        .as_array()
                        .unwrap()
                })
                .map(num)
                .collect();
            let dur = num(&run[phase]["duration_s"]);
            assert_eq!(
                dur, slowest,
                "run {k} {phase}: the slowest rank's duration over {ranks:?}"
            );
            assert_eq!(
                every.iter().copied().fold(0.0, f64::max),
                dur,
                "run {k} {phase}: the slowest of the 8 processes {every:?}"
            );
            assert!(
                close(num(&run[phase]["bytes_per_s"]), (8 * per) as f64 / dur),
                "run {k} {phase}: throughput = {} B / {dur} s, got {}",
                8 * per,
                run[phase]["bytes_per_s"]
            );
            durations.push(dur);
        }
        let mean = durations.iter().sum::<f64>() / 2.0;
        assert!(
            close(num(&m[&format!("{phase}_duration_s")]), mean),
            "{phase}: the mean of the runs' durations {durations:?}"
        );
    }
    for r in 0..8 {
        let f = dir.join(&format!("llama3-8b/llama3-8b-rank{r:05}-of00008.pt"));
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        assert_eq!(len, per, "process {r}'s share {}", f.display());
    }
}

#[test]
fn a_killed_rank_is_named_and_the_others_report() {
    let port = reserved_port();
    let coord = format!("127.0.0.1:{}", port.port);
    let args = null_job(25);
    let hb = [("IOLENS_HEARTBEAT_TIMEOUT", "3")];
    let one = rank(1, 3, &coord, "k", &args, &hb);
    let mut two = rank(2, 3, &coord, "k", &args, &hb);
    let zero = rank(0, 3, &coord, "k", &args, &hb);
    std::thread::sleep(Duration::from_secs(2));
    two.kill().expect("SIGKILL rank 2");
    let _ = two.wait();
    let (o, took) = wait_within(
        zero,
        Duration::from_secs(30),
        "rank 0 after rank 2 was killed",
    );
    let err = stderr(&o);
    assert!(
        !o.status.success(),
        "rank 0 must exit non-zero when rank 2 died; stderr: {err}"
    );
    assert!(err.contains("rank 2"), "rank 0 must name rank 2: {err}");
    assert!(took < Duration::from_secs(28), "rank 0 took {took:?}");
    let v: Value =
        serde_json::from_str(stdout(&o).trim()).expect("rank 0 prints what the others measured");
    let ranks: Vec<u64> = client_stats(&v)
        .iter()
        .filter_map(|j| j["rank"].as_u64())
        .collect();
    assert_eq!(ranks, [0, 1], "ranks 0 and 1 reported");
    let (o1, _) = wait_within(one, Duration::from_secs(30), "rank 1");
    assert!(
        !o1.status.success(),
        "rank 1 stopped early and says so: {}",
        stderr(&o1)
    );
    assert!(o1.stdout.is_empty());
}

#[test]
fn a_wrong_token_is_refused() {
    let port = reserved_port();
    let coord = format!("127.0.0.1:{}", port.port);
    let args = null_job(1);
    let to = [("IOLENS_JOIN_TIMEOUT", "5")];
    let zero = rank(0, 2, &coord, "right", &args, &to);
    let one = rank(1, 2, &coord, "wrong", &args, &to);
    let (o1, _) = wait_within(one, Duration::from_secs(30), "rank 1 with a wrong token");
    let (o0, _) = wait_within(zero, Duration::from_secs(30), "rank 0");
    assert!(!o1.status.success(), "rank 1 must fail");
    assert!(
        stderr(&o1).contains("refused rank 1: wrong token"),
        "rank 1: {}",
        stderr(&o1)
    );
    assert!(
        !o0.status.success(),
        "rank 0 must fail: rank 1 never joined"
    );
    let e0 = stderr(&o0);
    assert!(
        e0.contains("refused connection from 127.0.0.1") && e0.contains("wrong token"),
        "rank 0 logs the refusal: {e0}"
    );
    assert!(e0.contains("rank(s) 1 of 2 did not join"), "rank 0: {e0}");
    assert!(
        o0.stdout.is_empty() && o1.stdout.is_empty(),
        "no result is printed"
    );
}

#[test]
fn a_coordinator_that_never_comes_up_times_out() {
    // Nothing listens here for the whole test, and no other test can take the address.
    let dead = dead_addr();
    let coord = dead.addr.clone();
    let one = rank(
        1,
        2,
        &coord,
        "t",
        &null_job(1),
        &[("IOLENS_JOIN_TIMEOUT", "2")],
    );
    let (o, took) = wait_within(one, Duration::from_secs(30), "rank 1 without a coordinator");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "the coordinator at {coord} did not come up within 2 s"
        )),
        "{e}"
    );
    assert!(took < Duration::from_secs(15), "gave up after {took:?}");
}

fn run_json_plus(dir: &Path, name: &str, out: &str) {
    let o = run_in(
        dir,
        &[
            &format!("--name={name}"),
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=16m",
            "--output-format=json+",
            &format!("--output={out}"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn merge_of_separate_runs_is_exact() {
    let dir = TempDir::new("merge");
    run_json_plus(&dir.0, "a", "r1.json");
    run_json_plus(&dir.0, "a", "r2.json");
    run_json_plus(&dir.0, "b", "r3.json");
    // r3 ran another job: refused, then merged with --force and a warning.
    let o = run_in(&dir.0, &["merge", "r1.json", "r2.json", "r3.json"]);
    assert!(
        !o.status.success() && stderr(&o).contains("not of the same jobs"),
        "merging job b into runs of job a: expected a refusal, got exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    let same = run_in(&dir.0, &["merge", "r1.json", "r2.json"]);
    assert!(
        same.status.success() && !stderr(&same).contains("merge:"),
        "two runs of one job, made one after the other by one tool: no warning expected: {}",
        stderr(&same)
    );
    let o = run_in(
        &dir.0,
        &["merge", "--force", "r1.json", "r2.json", "r3.json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("merged anyway (--force)"),
        "the warning of a forced merge: {}",
        stderr(&o)
    );
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON document");
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"], "one entry per job name");
    // 16 MiB of 4 KiB reads per run.
    assert_eq!(
        jobs[0]["read"]["total_ios"].as_u64(),
        Some(2 * 4096),
        "a: two runs' sum"
    );
    assert_eq!(jobs[1]["read"]["total_ios"].as_u64(), Some(4096));
    let cs = client_stats(&v);
    assert_eq!(cs.len(), 4, "three inputs and All clients");
    assert_eq!(cs[3]["read"]["total_ios"].as_u64(), Some(3 * 4096));
    assert_eq!(cs[0]["hostname"].as_str(), Some("r1.json"));
    assert!(
        jobs[0]["read"]["clat_ns"]["percentile"]["99.000000"]
            .as_u64()
            .is_some(),
        "percentiles from the bins"
    );
}

#[test]
fn merge_of_fio_json_plus() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    let dir = TempDir::new("mergefio");
    for f in ["f1.json", "f2.json"] {
        let o = Command::new("fio")
            .current_dir(&dir.0)
            .args([
                "--name=x",
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=16m",
                "--output-format=json+",
                &format!("--output={f}"),
            ])
            .output()
            .expect("running fio");
        assert!(o.status.success(), "fio: {}", stderr(&o));
    }
    let plain = run_in(
        &dir.0,
        &["merge", "f1.json", "f2.json", "--output-format=json"],
    );
    assert!(plain.status.success(), "{}", stderr(&plain));
    let v: Value = serde_json::from_str(stdout(&plain).trim()).expect("one JSON document");
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["total_ios"].as_u64(), Some(2 * 4096));
    let p = j["read"]["clat_ns"]["percentile"]["50.000000"].as_u64();
    let inputs: Vec<u64> = client_stats(&v)[..2]
        .iter()
        .map(|c| {
            c["read"]["clat_ns"]["percentile"]["50.000000"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let p = p.expect("merged p50 from fio's bins");
    assert!(
        p >= *inputs.iter().min().unwrap() && p <= *inputs.iter().max().unwrap(),
        "merged p50 {p} within {inputs:?}"
    );
}

/// Network namespaces joined by veth pairs, removed on drop.
struct Netns(Vec<String>);

impl Drop for Netns {
    fn drop(&mut self) {
        for n in &self.0 {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[test]
fn ranks_in_network_namespaces() {
    if skip_unless(
        is_root() && ip(&["netns", "list"]),
        "ip netns is unavailable (needs root and iproute2)",
    ) {
        return;
    }
    let pid = std::process::id();
    let ns: Vec<String> = (0..3).map(|i| format!("iolens-it-{pid}-{i}")).collect();
    let guard = Netns(Vec::new());
    let mut guard = guard;
    for n in &ns {
        if !ip(&["netns", "add", n]) {
            skip_unless(
                false,
                "ip netns add failed (no permission for network namespaces?)",
            );
            return;
        }
        guard.0.push(n.clone());
    }
    // rank 0 in ns0 at 10.251.X.1; ns1 on the same /30, ns2 on a second /30 routed via ns0.
    let x = pid % 250;
    let a = |h: u32| format!("10.251.{x}.{h}");
    let t = |k: u32| format!("ilv{}{k}", pid % 100000);
    let steps: Vec<Vec<String>> = vec![
        vec![
            "link".into(),
            "add".into(),
            t(0),
            "netns".into(),
            ns[0].clone(),
            "type".into(),
            "veth".into(),
            "peer".into(),
            "name".into(),
            t(1),
            "netns".into(),
            ns[1].clone(),
        ],
        vec![
            "link".into(),
            "add".into(),
            t(2),
            "netns".into(),
            ns[0].clone(),
            "type".into(),
            "veth".into(),
            "peer".into(),
            "name".into(),
            t(3),
            "netns".into(),
            ns[2].clone(),
        ],
    ];
    for s in &steps {
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        assert!(ip(&s), "ip {s:?}");
    }
    let cfg = [
        (0, t(0), format!("{}/30", a(1))),
        (1, t(1), format!("{}/30", a(2))),
        (0, t(2), format!("{}/30", a(5))),
        (2, t(3), format!("{}/30", a(6))),
    ];
    for (n, dev, addr) in &cfg {
        assert!(
            ip(&["-n", &ns[*n], "addr", "add", addr, "dev", dev]),
            "address {addr} on {dev}"
        );
        assert!(ip(&["-n", &ns[*n], "link", "set", dev, "up"]), "{dev} up");
    }
    for n in &ns {
        assert!(ip(&["-n", n, "link", "set", "lo", "up"]));
    }
    assert!(
        ip(&[
            "-n",
            &ns[2],
            "route",
            "add",
            &format!("{}/30", a(0)),
            "via",
            &a(5)
        ]),
        "route from ns2 to rank 0"
    );
    let coord = format!("{}:{}", a(1), 7000 + pid % 1000);
    let spawn = |r: u32| {
        let mut c = Command::new("ip");
        c.args([
            "netns",
            "exec",
            &ns[r as usize],
            env!("CARGO_BIN_EXE_iolens"),
        ])
        .args(null_job(1))
        .env("IOLENS_RANK", r.to_string())
        .env("IOLENS_SIZE", "3")
        .env("IOLENS_COORDINATOR", &coord)
        .env("IOLENS_TOKEN", "netns")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        c.spawn().expect("ip netns exec")
    };
    let others: Vec<Child> = (1..3).map(spawn).collect();
    let zero = spawn(0);
    let (o, _) = wait_within(zero, Duration::from_secs(60), "rank 0 in its namespace");
    for c in others {
        let (oi, _) = wait_within(c, Duration::from_secs(30), "a rank in its namespace");
        assert!(oi.status.success(), "{}", stderr(&oi));
    }
    assert!(o.status.success(), "rank 0: {}", stderr(&o));
    // Clocks are one host's; the namespaces only separate the network.
    check_clients(&stdout(&o), "read", 3, 100);
    drop(guard);
    assert!(
        !ip(&["netns", "exec", &ns[0], "true"]),
        "namespace {} removed",
        ns[0]
    );
}

#[test]
fn scale_out_examples_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scale-out");
    let sbatch = root.join("iolens.sbatch");
    let o = Command::new("bash")
        .arg("-n")
        .arg(&sbatch)
        .output()
        .expect("bash -n");
    assert!(
        o.status.success(),
        "{} is not valid bash: {}",
        sbatch.display(),
        stderr(&o)
    );
    let text = std::fs::read_to_string(&sbatch).expect("the Slurm script");
    assert!(
        text.contains("#SBATCH --ntasks-per-node=1") && text.contains("srun"),
        "sbatch directives"
    );
    // kubectl apply --dry-run=client needs an API server for discovery: an offline structural
    // check with python3-yaml instead.
    let ok = Command::new(debian_python3())
        .args(["-c", "import yaml"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if skip_unless(
        ok,
        "python3-yaml is not installed: the manifest is not checked",
    ) {
        return;
    }
    let o = Command::new(debian_python3())
        .arg(root.join("check_manifest.py"))
        .arg(root.join("iolens-indexed-job.yaml"))
        .output()
        .expect("python3");
    assert!(
        o.status.success(),
        "manifest check: {}{}",
        stdout(&o),
        stderr(&o)
    );
}

#[test]
fn normal_output_has_each_rank_and_all_clients_and_explains_the_aggregate() {
    let port = reserved_port();
    let coord = format!("127.0.0.1:{}", port.port);
    let mut args = null_job(1);
    args.retain(|a| !a.starts_with("--output-format"));
    args.push("--explain".into());
    let one = rank(1, 2, &coord, "n", &args, &[]);
    let zero = rank(0, 2, &coord, "n", &args, &[]);
    let (o, _) = wait_within(zero, Duration::from_secs(60), "rank 0");
    let (o1, _) = wait_within(one, Duration::from_secs(30), "rank 1");
    assert!(
        o.status.success() && o1.status.success(),
        "{}{}",
        stderr(&o),
        stderr(&o1)
    );
    let out = stdout(&o);
    for want in [
        ", rank=0, job_start=",
        ", rank=1, job_start=",
        "All clients: (groupid=0, jobs=2)",
        "Run status group 0",
    ] {
        assert!(out.contains(want), "normal output lacks '{want}':\n{out}");
    }
    assert!(
        stderr(&o).contains("context:") && !out.contains("context:"),
        "--explain explains the merged result on stderr, stdout keeps the normal output only:\n--- stdout:\n{out}\n--- stderr:\n{}",
        stderr(&o)
    );
    assert!(o1.stdout.is_empty(), "rank 1 printed: {}", stdout(&o1));
}

/// Debian's python3 (where python3-yaml installs), not a python3 that PATH may put first.
fn debian_python3() -> &'static str {
    if std::path::Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}
