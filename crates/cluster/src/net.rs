//! Rank 0 (the coordinator) and the other ranks (members): rendezvous, start, heartbeats,
//! failure detection and the gathering of results.

use std::cell::Cell;
use std::io::ErrorKind;
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use iolens_job::OutputFormat;
use iolens_report::clients::{Client, Clients};
use iolens_stats::merge::{merge_runs, JobMerge};
use iolens_stats::RunResult;

use crate::launch::{same_token, Launch};
use crate::proto::{recv, send, Msg};
use crate::{Executed, Timeouts};

/// Time from rank 0's start message to the start of the jobs.
const START_DELAY: Duration = Duration::from_millis(500);
/// Bound on a single write to a peer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a new connection has to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Milliseconds since the epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

static STOPPED: AtomicBool = AtomicBool::new(false);

/// Stops this process's jobs the way Ctrl-C does (once), so it reports what it measured.
fn stop_local_jobs() {
    if !STOPPED.swap(true, Ordering::SeqCst) {
        // SAFETY: raise only delivers SIGINT to this process; iolens's handler sets a flag.
        unsafe {
            libc::raise(libc::SIGINT);
        }
    }
}

fn log(rank: u32, s: &str) {
    eprintln!("iolens: rank {rank}: {s}");
}

/// One rank's result as rank 0 holds it.
#[derive(Debug, Clone)]
pub struct RankResult {
    /// Its rank.
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// When its jobs started, ms since the epoch.
    pub job_start_ms: u64,
    /// What it measured.
    pub result: RunResult,
    /// Its job errors.
    pub errors: Vec<String>,
}

/// What a rank measured: fio's result, or a command's own (`train`, `checkpoint`) as JSON.
#[derive(Debug, Clone)]
pub enum Payload {
    /// fio's result.
    Run(Box<RunResult>),
    /// A command's result.
    Data {
        /// The command.
        kind: String,
        /// Its result.
        body: serde_json::Value,
    },
}

impl Payload {
    /// What it is, in words, for a rank that sent another kind than rank 0's.
    pub fn kind(&self) -> &str {
        match self {
            Payload::Run(_) => "fio jobs",
            Payload::Data { kind, .. } => kind,
        }
    }
}

/// One rank's payload as rank 0 holds it.
#[derive(Debug, Clone)]
pub struct RankPayload {
    /// Its rank.
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// When its work started, ms since the epoch.
    pub job_start_ms: u64,
    /// What it measured.
    pub payload: Payload,
    /// Its errors.
    pub errors: Vec<String>,
}

/// What a rank's work returns: its payload, its errors, and when its work started (ms since
/// the epoch).
pub type Worked = (Payload, Vec<String>, u64);

struct Peer {
    hostname: String,
    writer: Mutex<TcpStream>,
}

impl Peer {
    fn send(&self, token: &str, msg: &Msg) -> Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        send(&mut *w, token, msg)
    }
}

#[derive(Default)]
struct State {
    peers: Vec<Option<Arc<Peer>>>,
    results: Vec<Option<RankPayload>>,
    /// The last barrier each rank reached.
    arrived: Vec<u32>,
    failed: Vec<Option<String>>,
    started: bool,
    finished: bool,
}

struct Shared {
    st: Mutex<State>,
    cv: Condvar,
    token: String,
    size: u32,
    t: Timeouts,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn peers(&self) -> Vec<(u32, Arc<Peer>)> {
        self.lock()
            .peers
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.clone().map(|p| (i as u32, p)))
            .collect()
    }

    fn broadcast(&self, msg: &Msg) {
        for (_, p) in self.peers() {
            let _ = p.send(&self.token, msg);
        }
    }

    /// Keeps a rank's result (unless it failed already).
    fn result(
        &self,
        rank: u32,
        hostname: &str,
        job_start_ms: u64,
        payload: Payload,
        errors: Vec<String>,
    ) {
        let mut st = self.lock();
        if st.failed[rank as usize].is_none() {
            st.results[rank as usize] = Some(RankPayload {
                rank,
                hostname: hostname.to_string(),
                job_start_ms,
                payload,
                errors,
            });
        }
        self.cv.notify_all();
    }

    /// Marks a rank failed; during the run, stops every rank's jobs.
    fn fail(&self, rank: u32, reason: String) {
        let (host, abort) = {
            let mut st = self.lock();
            if st.failed[rank as usize].is_some() || st.results[rank as usize].is_some() {
                return;
            }
            let host = st.peers[rank as usize]
                .as_ref()
                .map(|p| p.hostname.clone())
                .unwrap_or_else(|| "?".into());
            st.failed[rank as usize] = Some(format!("rank {rank} (host {host}) failed: {reason}"));
            let abort = st.started && !st.finished;
            self.cv.notify_all();
            (host, abort)
        };
        log(0, &format!("rank {rank} (host {host}) failed: {reason}"));
        if abort {
            self.broadcast(&Msg::Abort {
                reason: format!("rank {rank} (host {host}) failed: {reason}"),
            });
            stop_local_jobs();
        }
    }
}

fn resolve(addr: &str) -> Result<Vec<SocketAddr>> {
    let v: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .with_context(|| format!("coordinator address '{addr}': expected HOST:PORT"))?
        .collect();
    if v.is_empty() {
        bail!("coordinator address '{addr}' resolves to nothing");
    }
    Ok(v)
}

fn why(e: &anyhow::Error, silence: Duration) -> String {
    match e.downcast_ref::<std::io::Error>().map(|e| e.kind()) {
        Some(ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            format!(
                "no heartbeat for {:.0} s (hung, or the network is down)",
                silence.as_secs_f64()
            )
        }
        Some(ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => {
            "connection closed (the process died or was killed)".into()
        }
        _ => format!("{e:#}"),
    }
}

/// Rank 0's listening side.
pub struct Coordinator {
    shared: Arc<Shared>,
    addr: String,
    /// Where it listens (the port, when `addr` asked for any).
    local: Option<SocketAddr>,
}

impl Coordinator {
    /// Listens at exactly `addr` and accepts ranks in the background.
    pub fn listen(addr: &str, token: &str, size: u32, t: Timeouts) -> Result<Coordinator> {
        let mut last = None;
        let mut listener = None;
        for a in resolve(addr)? {
            match TcpListener::bind(a) {
                Ok(l) => {
                    listener = Some(l);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let Some(listener) = listener else {
            bail!(
                "rank 0 cannot listen at {addr}: {} (IOLENS_COORDINATOR must be an address of rank 0's host, with a free port)",
                last.map(|e| e.to_string()).unwrap_or_default()
            );
        };
        let local = listener.local_addr().ok();
        let st = State {
            peers: vec![None; size as usize],
            results: vec![None; size as usize],
            failed: vec![None; size as usize],
            arrived: vec![0; size as usize],
            ..State::default()
        };
        let shared = Arc::new(Shared {
            st: Mutex::new(st),
            cv: Condvar::new(),
            token: token.to_string(),
            size,
            t,
        });
        let s = shared.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                match conn {
                    Ok(c) => {
                        let s = s.clone();
                        std::thread::spawn(move || serve(&s, c));
                    }
                    Err(e) => log(0, &format!("accept failed: {e}")),
                }
            }
        });
        let s = shared.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(s.t.heartbeat_every);
            if s.lock().finished {
                return;
            }
            for (rank, p) in s.peers() {
                if let Err(e) = p.send(&s.token, &Msg::Heartbeat) {
                    s.fail(rank, format!("cannot reach it: {e:#}"));
                }
            }
        });
        Ok(Coordinator {
            shared,
            addr: addr.to_string(),
            local,
        })
    }

    /// Where it listens (its port, when its address asked for any).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local
    }

    /// Waits for every rank, hands out the start, runs rank 0's jobs, gathers the results.
    pub fn run(
        self,
        hostname: &str,
        execute: impl FnOnce() -> Result<Executed>,
        printing: &crate::Printing,
    ) -> Result<crate::Outcome> {
        let (ranks, mut failures) = self.gather(hostname, |_| {
            execute().map(|(r, e, start)| (Payload::Run(Box::new(r)), e, start))
        })?;
        let ranks = runs_of(ranks, &mut failures);
        Ok(outcome(&ranks, &failures, printing))
    }

    /// Waits for every rank, hands out the start, runs rank 0's work (which may wait at
    /// barriers with the others), gathers every rank's payload (rank 0's first) and the
    /// failures.
    pub fn gather(
        self,
        hostname: &str,
        execute: impl FnOnce(&Barrier) -> Result<Worked>,
    ) -> Result<(Vec<RankPayload>, Vec<String>)> {
        let s = &self.shared;
        let deadline = Instant::now() + s.t.join;
        {
            let mut st = s.lock();
            loop {
                let missing: Vec<String> = (1..s.size)
                    .filter(|r| st.peers[*r as usize].is_none())
                    .map(|r| r.to_string())
                    .collect();
                if let Some(f) = st.failed.iter().flatten().next() {
                    let f = f.clone();
                    drop(st);
                    s.broadcast(&Msg::Abort { reason: f.clone() });
                    bail!("rendezvous at {}: {f}", self.addr);
                }
                if missing.is_empty() {
                    break;
                }
                let now = Instant::now();
                if now >= deadline {
                    drop(st);
                    let msg = format!(
                        "rendezvous at {}: rank(s) {} of {} did not join within {:.0} s",
                        self.addr,
                        missing.join(", "),
                        s.size,
                        s.t.join.as_secs_f64()
                    );
                    s.broadcast(&Msg::Abort {
                        reason: msg.clone(),
                    });
                    bail!("{msg}");
                }
                st =
                    s.cv.wait_timeout(st, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
            }
            st.started = true;
        }
        let at_ms = now_ms() + START_DELAY.as_millis() as u64;
        s.broadcast(&Msg::Start {
            at_ms,
            delay_ms: START_DELAY.as_millis() as u64,
        });
        sleep_until_ms(at_ms);
        let barrier = Barrier {
            side: Side::Coordinator(s),
            passed: Cell::new(0),
        };
        let (own, own_errors, job_start_ms) = match execute(&barrier) {
            Ok(v) => v,
            Err(e) => {
                s.broadcast(&Msg::Abort {
                    reason: format!("rank 0 failed: {e:#}"),
                });
                s.lock().finished = true;
                return Err(e);
            }
        };
        // Gather: every rank's result, or its failure.
        let gather_end = Instant::now() + s.t.gather;
        let mut st = s.lock();
        loop {
            let pending: Vec<u32> = (1..s.size)
                .filter(|r| st.results[*r as usize].is_none() && st.failed[*r as usize].is_none())
                .collect();
            if pending.is_empty() {
                break;
            }
            let now = Instant::now();
            if now >= gather_end {
                for r in pending {
                    st.failed[r as usize] = Some(format!(
                        "rank {r} sent no result within {:.0} s of rank 0's end",
                        s.t.gather.as_secs_f64()
                    ));
                }
                break;
            }
            st =
                s.cv.wait_timeout(st, gather_end - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
        }
        st.finished = true;
        let mut ranks = vec![RankPayload {
            rank: 0,
            hostname: hostname.to_string(),
            job_start_ms,
            payload: own,
            errors: own_errors,
        }];
        ranks.extend(st.results.iter().flatten().cloned());
        let failures: Vec<String> = st.failed.iter().flatten().cloned().collect();
        drop(st);
        s.broadcast(&Msg::Done);
        Ok((ranks, failures))
    }
}

impl Shared {
    /// Rank 0's side of barrier `n`: waits until every rank reached it (or one failed, or
    /// ended without it), then lets them go on.
    fn barrier(&self, n: u32) -> Result<()> {
        let mut st = self.lock();
        st.arrived[0] = n;
        loop {
            if let Some(f) = st.failed.iter().flatten().next() {
                bail!("barrier {n}: {f}");
            }
            if let Some(r) = (1..self.size)
                .find(|r| st.arrived[*r as usize] < n && st.results[*r as usize].is_some())
            {
                bail!("barrier {n}: rank {r} ended its run without reaching it (do all ranks run the same command line?)");
            }
            if (1..self.size).all(|r| st.arrived[r as usize] >= n) {
                break;
            }
            // A rank that dies is failed by its connection's reader, which wakes this wait.
            st = self
                .cv
                .wait_timeout(st, self.t.heartbeat)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(st);
        self.broadcast(&Msg::Proceed { n });
        Ok(())
    }
}

/// A point of a run that every rank reaches before any goes on (a checkpoint's write ends on
/// every host before any host reads). Each `wait` is the next barrier; every rank must wait
/// at the same number of them.
pub struct Barrier<'a> {
    side: Side<'a>,
    passed: Cell<u32>,
}

enum Side<'a> {
    Alone,
    Coordinator(&'a Shared),
    Member {
        shared: &'a MemberShared,
        writer: &'a Mutex<TcpStream>,
        token: &'a str,
        rank: u32,
    },
}

impl Barrier<'_> {
    /// The barrier of a run of one rank: nothing to wait for.
    pub fn alone() -> Barrier<'static> {
        Barrier {
            side: Side::Alone,
            passed: Cell::new(0),
        }
    }

    /// Waits until every rank reached this barrier; an error when a rank failed or rank 0
    /// was lost or called the run off meanwhile.
    pub fn wait(&self) -> Result<()> {
        let n = self.passed.get() + 1;
        match &self.side {
            Side::Alone => {}
            Side::Coordinator(s) => s.barrier(n)?,
            Side::Member {
                shared,
                writer,
                token,
                rank,
            } => {
                {
                    let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
                    send(&mut *w, token, &Msg::Arrived { n })
                        .with_context(|| format!("rank {rank}: cannot reach rank 0"))?;
                }
                let (m, cv) = &***shared;
                let mut st = m.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if st.proceed >= n {
                        break;
                    }
                    if let Some(a) = &st.abort {
                        bail!("rank {rank}: barrier {n}: rank 0 called the run off: {a}");
                    }
                    if let Some(l) = &st.lost {
                        bail!("rank {rank}: barrier {n}: {l}");
                    }
                    // The reader thread wakes this wait on every message and on rank 0's loss.
                    st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        self.passed.set(n);
        Ok(())
    }
}

/// The fio results of `ranks`; a rank that sent another kind of result is a failure.
fn runs_of(ranks: Vec<RankPayload>, failures: &mut Vec<String>) -> Vec<RankResult> {
    ranks
        .into_iter()
        .filter_map(|r| match r.payload {
            Payload::Run(result) => Some(RankResult {
                rank: r.rank,
                hostname: r.hostname,
                job_start_ms: r.job_start_ms,
                result: *result,
                errors: r.errors,
            }),
            other => {
                failures.push(format!(
                    "rank {} (host {}) ran {}, not fio jobs",
                    r.rank,
                    r.hostname,
                    other.kind()
                ));
                None
            }
        })
        .collect()
}

fn sleep_until_ms(at_ms: u64) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    if let Some(left) = Duration::from_millis(at_ms).checked_sub(now) {
        std::thread::sleep(left);
    }
}

/// Serves one connection to rank 0.
fn serve(s: &Shared, mut c: TcpStream) {
    let from = c
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "?".into());
    let _ = c.set_nodelay(true);
    let _ = c.set_read_timeout(Some(HELLO_TIMEOUT));
    let _ = c.set_write_timeout(Some(WRITE_TIMEOUT));
    let refuse = |c: &mut TcpStream, reason: &str| {
        log(0, &format!("refused connection from {from}: {reason}"));
        let _ = send(
            c,
            "",
            &Msg::Refused {
                reason: reason.into(),
            },
        );
    };
    let f = match recv(&mut c) {
        Ok(f) => f,
        Err(e) => {
            log(0, &format!("refused connection from {from}: {e:#}"));
            return;
        }
    };
    if !same_token(&f.token, &s.token) {
        refuse(&mut c, "wrong token");
        return;
    }
    let Msg::Hello {
        rank,
        size,
        hostname,
        version,
    } = f.msg
    else {
        refuse(&mut c, "expected a hello");
        return;
    };
    let Ok(writer) = c.try_clone() else { return };
    {
        let mut st = s.lock();
        let bad = if size != s.size {
            Some(format!(
                "rank {rank} was launched with {size} ranks, rank 0 with {}",
                s.size
            ))
        } else if rank == 0 || rank >= s.size {
            Some(format!("rank {rank} is not in 1..{}", s.size))
        } else if st.peers[rank as usize].is_some() {
            Some(format!("rank {rank} has already joined"))
        } else if st.started {
            Some(format!("rank {rank} came after the start"))
        } else {
            None
        };
        if let Some(b) = bad {
            drop(st);
            refuse(&mut c, &b);
            return;
        }
        let p = Arc::new(Peer {
            hostname: hostname.clone(),
            writer: Mutex::new(writer),
        });
        if p.send(&s.token, &Msg::Welcome).is_err() {
            return;
        }
        st.peers[rank as usize] = Some(p);
        s.cv.notify_all();
    }
    if version != env!("CARGO_PKG_VERSION") {
        log(
            0,
            &format!(
                "rank {rank} ({hostname}) runs iolens {version}, rank 0 {}",
                env!("CARGO_PKG_VERSION")
            ),
        );
    }
    let _ = c.set_read_timeout(Some(s.t.heartbeat));
    loop {
        match recv(&mut c) {
            Ok(f) if !same_token(&f.token, &s.token) => {
                s.fail(rank, "sent a message with a wrong token".into());
                return;
            }
            Ok(f) => match f.msg {
                Msg::Result {
                    job_start_ms,
                    result,
                    errors,
                } => {
                    s.result(rank, &hostname, job_start_ms, Payload::Run(result), errors);
                    return;
                }
                Msg::Data {
                    job_start_ms,
                    kind,
                    body,
                    errors,
                } => {
                    let p = Payload::Data { kind, body };
                    s.result(rank, &hostname, job_start_ms, p, errors);
                    return;
                }
                Msg::Arrived { n } => {
                    let mut st = s.lock();
                    st.arrived[rank as usize] = n;
                    s.cv.notify_all();
                }
                _ => continue,
            },
            Err(e) => {
                if !s.lock().finished {
                    s.fail(rank, why(&e, s.t.heartbeat));
                }
                return;
            }
        }
    }
}

#[derive(Default)]
struct MemberState {
    start: Option<(u64, u64, Instant)>,
    /// The last barrier rank 0 let this rank pass.
    proceed: u32,
    abort: Option<String>,
    lost: Option<String>,
    done: bool,
    finished: bool,
}

/// What a member's threads share: the state rank 0's messages set, and the condition the
/// main thread waits on.
type MemberShared = Arc<(Mutex<MemberState>, Condvar)>;

/// Runs a rank other than 0: joins, waits for the start, runs, sends the result.
pub fn member(
    addr: &str,
    token: &str,
    l: &Launch,
    hostname: &str,
    t: &Timeouts,
    execute: impl FnOnce() -> Result<Executed>,
) -> Result<crate::Outcome> {
    let code = member_work(addr, token, l, hostname, t, |_| {
        execute().map(|(r, e, start)| (Payload::Run(Box::new(r)), e, start))
    })?;
    Ok(crate::Outcome {
        text: String::new(),
        code,
        merged: None,
    })
}

/// Runs a rank other than 0 with any payload: joins, waits for the start, runs (waiting at
/// barriers with the others), sends the payload; returns the rank's exit code (1 when it
/// had errors, was interrupted or the run was called off).
pub fn member_work(
    addr: &str,
    token: &str,
    l: &Launch,
    hostname: &str,
    t: &Timeouts,
    execute: impl FnOnce(&Barrier) -> Result<Worked>,
) -> Result<i32> {
    let rank = l.rank;
    let c = join(addr, token, l, hostname, t)?;
    let shared: MemberShared = Arc::new((Mutex::new(MemberState::default()), Condvar::new()));
    let writer = Arc::new(Mutex::new(c.try_clone()?));
    let _ = c.set_read_timeout(Some(t.heartbeat));
    listen(c, shared.clone(), token, t.heartbeat);
    heartbeat(shared.clone(), writer.clone(), token, t.heartbeat_every);
    let (m, _) = &*shared;
    let (at_ms, delay_ms, got) = wait_for_start(&shared, addr, rank, t)?;
    start_at(rank, at_ms, delay_ms, got);
    let barrier = Barrier {
        side: Side::Member {
            shared: &shared,
            writer: &writer,
            token,
            rank,
        },
        passed: Cell::new(0),
    };
    let (payload, errors, job_start_ms) = match execute(&barrier) {
        Ok(v) => v,
        Err(e) => {
            m.lock().unwrap_or_else(|e| e.into_inner()).finished = true;
            return Err(e);
        }
    };
    let failed = !errors.is_empty() || matches!(&payload, Payload::Run(r) if r.interrupted);
    {
        let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
        let msg = match payload {
            Payload::Run(result) => Msg::Result {
                job_start_ms,
                result,
                errors: errors.clone(),
            },
            Payload::Data { kind, body } => Msg::Data {
                job_start_ms,
                kind,
                body,
                errors: errors.clone(),
            },
        };
        let r = send(&mut *w, token, &msg);
        if let Err(e) = r {
            m.lock().unwrap_or_else(|e| e.into_inner()).finished = true;
            bail!("rank {rank}: cannot send the result to rank 0: {e:#}");
        }
    }
    let st = wait_for_done(&shared);
    for e in &errors {
        log(rank, e);
    }
    if let Some(a) = &st.abort {
        log(rank, &format!("stopped early: {a}"));
        return Ok(1);
    }
    if !st.done {
        let why = st
            .lost
            .clone()
            .unwrap_or_else(|| "no acknowledgement of the result".into());
        bail!("rank {rank}: {why}");
    }
    Ok(i32::from(failed))
}

/// Connects to rank 0 and greets it; rank 0 welcomes the rank or says why not.
fn join(addr: &str, token: &str, l: &Launch, hostname: &str, t: &Timeouts) -> Result<TcpStream> {
    let rank = l.rank;
    let mut c = connect(addr, t.join)?;
    let _ = c.set_nodelay(true);
    let _ = c.set_read_timeout(Some(HELLO_TIMEOUT));
    let _ = c.set_write_timeout(Some(WRITE_TIMEOUT));
    send(
        &mut c,
        token,
        &Msg::Hello {
            rank,
            size: l.size,
            hostname: hostname.to_string(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    )
    .with_context(|| format!("rank {rank}: cannot greet rank 0 at {addr}"))?;
    let f =
        recv(&mut c).with_context(|| format!("rank {rank}: no answer from rank 0 at {addr}"))?;
    match f.msg {
        Msg::Welcome if same_token(&f.token, token) => Ok(c),
        Msg::Refused { reason } => bail!("rank 0 at {addr} refused rank {rank}: {reason}"),
        _ => bail!("rank {rank}: rank 0 at {addr} answered with an unexpected message"),
    }
}

/// A thread that reads rank 0's messages (start, abort, done) into the shared state until the
/// run is over or rank 0 is lost (silent for `silence`); an abort or a lost rank 0 after the
/// start stops the local jobs.
fn listen(mut c: TcpStream, shared: MemberShared, token: &str, silence: Duration) {
    let token = token.to_string();
    std::thread::spawn(move || loop {
        let r = recv(&mut c);
        let (m, cv) = &*shared;
        let mut st = m.lock().unwrap_or_else(|e| e.into_inner());
        match r {
            Ok(f) if !same_token(&f.token, &token) => {
                st.lost = Some("rank 0 sent a message with a wrong token".into());
            }
            Ok(f) => match f.msg {
                Msg::Start { at_ms, delay_ms } => {
                    st.start = Some((at_ms, delay_ms, Instant::now()))
                }
                Msg::Abort { reason } => {
                    st.abort = Some(reason);
                    if st.start.is_some() {
                        stop_local_jobs();
                    }
                }
                Msg::Done => st.done = true,
                Msg::Proceed { n } => st.proceed = st.proceed.max(n),
                _ => {}
            },
            Err(e) => {
                if !st.done {
                    st.lost = Some(format!("lost rank 0: {}", why(&e, silence)));
                    if st.start.is_some() {
                        stop_local_jobs();
                    }
                }
            }
        }
        cv.notify_all();
        if st.lost.is_some() || st.done || (st.abort.is_some() && st.start.is_none()) {
            return;
        }
    });
}

/// A thread that tells rank 0 every `every` that this rank is alive, until the run is over.
fn heartbeat(shared: MemberShared, writer: Arc<Mutex<TcpStream>>, token: &str, every: Duration) {
    let token = token.to_string();
    std::thread::spawn(move || loop {
        std::thread::sleep(every);
        {
            let st = shared.0.lock().unwrap_or_else(|e| e.into_inner());
            if st.finished || st.lost.is_some() || st.done {
                return;
            }
        }
        let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
        if send(&mut *w, &token, &Msg::Heartbeat).is_err() {
            return;
        }
    });
}

/// Waits for rank 0's start message (rank 0 waits up to the join timeout for the others):
/// the start time on rank 0's clock, the start delay, and when the message came.
fn wait_for_start(
    shared: &MemberShared,
    addr: &str,
    rank: u32,
    t: &Timeouts,
) -> Result<(u64, u64, Instant)> {
    let (m, cv) = &**shared;
    let wait_end = Instant::now() + t.join + Duration::from_secs(10);
    let mut st = m.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(s) = st.start {
            return Ok(s);
        }
        if let Some(r) = st.abort.clone() {
            bail!("rank {rank}: rank 0 called the run off: {r}");
        }
        if let Some(r) = st.lost.clone() {
            bail!("rank {rank}: {r} before the start");
        }
        let now = Instant::now();
        if now >= wait_end {
            bail!(
                "rank {rank}: no start from rank 0 at {addr} within {:.0} s",
                (t.join + Duration::from_secs(10)).as_secs_f64()
            );
        }
        st = cv
            .wait_timeout(st, wait_end - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// Sleeps until the start time, on rank 0's clock; a host whose clock is far off (or that got
/// the message late) waits the start delay from the message instead, and says why.
fn start_at(rank: u32, at_ms: u64, delay_ms: u64, got: Instant) {
    let now = now_ms();
    if at_ms >= now && at_ms - now <= 2 * delay_ms + 1000 {
        sleep_until_ms(at_ms);
        return;
    }
    // One message cannot tell a clock ahead of rank 0's from a start message that came late
    // (a loaded host, a slow network): say both.
    let why = if at_ms < now {
        format!(
            "the start time is {} ms in this host's past (its clock is ahead of rank 0's, or the start message came late)",
            now - at_ms
        )
    } else {
        format!(
            "the start time is {} ms ahead, beyond the {delay_ms} ms start delay (this host's clock is behind rank 0's)",
            at_ms - now
        )
    };
    log(
        rank,
        &format!("{why}: starting {delay_ms} ms after the start message arrived instead"),
    );
    let left = Duration::from_millis(delay_ms).saturating_sub(got.elapsed());
    std::thread::sleep(left);
}

/// Waits for rank 0's acknowledgement of the result, which comes when every rank's result is
/// in (ranks whose work ends at different times wait for the last), or for rank 0's abort or
/// loss (its heartbeats stop), and marks the rank finished, which ends its heartbeat.
fn wait_for_done(shared: &MemberShared) -> std::sync::MutexGuard<'_, MemberState> {
    let (m, cv) = &**shared;
    let mut st = m.lock().unwrap_or_else(|e| e.into_inner());
    // The reader thread wakes this wait on every message from rank 0 (heartbeats included)
    // and when rank 0 is lost.
    while !st.done && st.lost.is_none() && st.abort.is_none() {
        st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
    st.finished = true;
    st
}

fn connect(addr: &str, within: Duration) -> Result<TcpStream> {
    let end = Instant::now() + within;
    let mut pause = Duration::from_millis(100);
    loop {
        let mut last = String::new();
        match resolve(addr) {
            Ok(addrs) => {
                for a in addrs {
                    let left = end
                        .saturating_duration_since(Instant::now())
                        .max(Duration::from_millis(100));
                    match TcpStream::connect_timeout(&a, left.min(Duration::from_secs(3))) {
                        Ok(c) => return Ok(c),
                        Err(e) => last = e.to_string(),
                    }
                }
            }
            // A name that does not resolve yet (a Kubernetes Service before its pod is ready).
            Err(e) => last = format!("{e:#}"),
        }
        if Instant::now() + pause >= end {
            bail!(
                "the coordinator at {addr} did not come up within {:.0} s (last error: {last}); is rank 0 running, and is IOLENS_COORDINATOR its address?",
                within.as_secs_f64()
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

/// Rank 0's report: every rank's result, the "All clients" aggregate, the failures.
pub fn outcome(
    ranks: &[RankResult],
    failures: &[String],
    printing: &crate::Printing,
) -> crate::Outcome {
    let mut notes: Vec<String> = failures.to_vec();
    for r in ranks {
        for e in &r.errors {
            notes.push(format!("rank {} ({}): {e}", r.rank, r.hostname));
        }
    }
    let starts: Vec<u64> = ranks.iter().map(|r| r.job_start_ms).collect();
    if ranks.len() > 1 {
        let skew = starts.iter().max().unwrap_or(&0) - starts.iter().min().unwrap_or(&0);
        let line = format!(
            "start skew: {skew} ms between the earliest and latest job_start of {} ranks (each host's clock)",
            ranks.len()
        );
        eprintln!("iolens: {line}");
        notes.push(line);
    }
    for f in failures {
        eprintln!("iolens: {f}");
    }
    let runs: Vec<&RunResult> = ranks.iter().map(|r| &r.result).collect();
    let merged = merge_runs(&runs, JobMerge::ByName, "", &mut notes);
    let all = merge_runs(&runs, JobMerge::All, "All clients", &mut notes);
    let extra = (printing.extra)(&merged);
    let view = Clients {
        clients: ranks
            .iter()
            .map(|r| Client {
                hostname: &r.hostname,
                rank: Some(r.rank),
                job_start_ms: Some(r.job_start_ms),
                result: &r.result,
            })
            .collect(),
        merged: &merged,
        all: if ranks.len() > 1 {
            all.jobs.first()
        } else {
            None
        },
        notes: &notes,
        extra: &extra,
    };
    let text = render(&view, printing.formats, printing.terse_version);
    let bad = !failures.is_empty()
        || ranks
            .iter()
            .any(|r| !r.errors.is_empty() || r.result.interrupted);
    crate::Outcome {
        text,
        code: i32::from(bad),
        merged: Some(merged),
    }
}

/// A client/server result (per-rank or per-file entries and "All clients") in each of
/// `formats`, in order: the cluster run and `iolens merge` print through this.
pub(crate) fn render(view: &Clients, formats: &[OutputFormat], terse_version: u32) -> String {
    iolens_report::fio::render(view, formats, terse_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_has(log: &Mutex<Vec<String>>, what: &str) -> bool {
        log.lock().unwrap().iter().any(|l| l == what)
    }

    #[test]
    fn a_barrier_lets_no_rank_on_before_every_rank_is_there() {
        let t = Timeouts {
            join: Duration::from_secs(30),
            heartbeat_every: Duration::from_millis(300),
            heartbeat: Duration::from_secs(30),
            gather: Duration::from_secs(30),
        };
        let coord = Coordinator::listen("127.0.0.1:0", "tok", 2, t.clone()).expect("listen");
        let addr = coord.local_addr().expect("a bound address").to_string();
        let log = Arc::new(Mutex::new(Vec::<String>::new()));
        let push = |log: &Mutex<Vec<String>>, s: &str| log.lock().unwrap().push(s.to_string());
        let l1 = log.clone();
        let member = std::thread::spawn(move || {
            let launch = Launch {
                rank: 1,
                size: 2,
                source: "IOLENS_RANK",
                job_id: None,
            };
            member_work(&addr, "tok", &launch, "h1", &t, |b| {
                push(&l1, "1 wrote");
                b.wait()?;
                // Rank 0 wrote before barrier 1, whatever the threads' speeds.
                let saw = log_has(&l1, "0 wrote");
                push(&l1, "1 read");
                b.wait()?;
                let body = serde_json::json!({ "saw_0_wrote": saw });
                Ok((
                    Payload::Data {
                        kind: "t".into(),
                        body,
                    },
                    Vec::new(),
                    1,
                ))
            })
        });
        let (ranks, failures) = coord
            .gather("h0", |b| {
                push(&log, "0 wrote");
                b.wait()?;
                assert!(
                    log_has(&log, "1 wrote"),
                    "rank 0 passed barrier 1 before rank 1 wrote: {:?}",
                    log.lock().unwrap()
                );
                b.wait()?;
                assert!(
                    log_has(&log, "1 read"),
                    "rank 0 passed barrier 2 before rank 1 read: {:?}",
                    log.lock().unwrap()
                );
                let body = serde_json::json!({});
                Ok((
                    Payload::Data {
                        kind: "t".into(),
                        body,
                    },
                    Vec::new(),
                    0,
                ))
            })
            .expect("rank 0 gathers");
        assert!(failures.is_empty(), "{failures:?}");
        assert_eq!(member.join().unwrap().expect("rank 1 ends"), 0);
        assert_eq!(ranks.len(), 2, "both ranks' payloads");
        let Payload::Data { body, .. } = &ranks[1].payload else {
            panic!("rank 1 sent data: {:?}", ranks[1].payload)
        };
        assert_eq!(
            body["saw_0_wrote"],
            serde_json::Value::Bool(true),
            "rank 1 passed barrier 1 only after rank 0 wrote"
        );
    }
}
