//! The wire protocol between ranks: length-prefixed JSON frames (a 4-byte big-endian length,
//! then the frame), each carrying the shared token.

use std::io::{Read, Write};

use anyhow::{bail, Context, Result};
use iolens_stats::RunResult;
use serde::{Deserialize, Serialize};

/// Largest frame accepted (a result with many jobs' histograms stays far below).
pub const MAX_FRAME: u32 = 256 << 20;

/// A message.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Msg {
    /// A rank announces itself (after planning its jobs).
    Hello {
        /// Its rank.
        rank: u32,
        /// The size it was launched with.
        size: u32,
        /// Its host name.
        hostname: String,
        /// Its program version.
        version: String,
    },
    /// Rank 0 accepts the rank.
    Welcome,
    /// Rank 0 refuses the connection.
    Refused {
        /// Why.
        reason: String,
    },
    /// Start the jobs at this time (ms since the epoch), or, if this host's clock disagrees
    /// badly, `delay_ms` after receipt.
    Start {
        /// Start time, ms since the epoch.
        at_ms: u64,
        /// Delay from rank 0's send to the start.
        delay_ms: u64,
    },
    /// I am alive.
    Heartbeat,
    /// A rank's full result.
    Result {
        /// When its jobs started, ms since the epoch.
        job_start_ms: u64,
        /// Everything it measured (histograms included).
        result: Box<RunResult>,
        /// Its job errors.
        errors: Vec<String>,
    },
    /// A rank's result of a command with results of its own (`train`, `checkpoint`).
    Data {
        /// When its work started, ms since the epoch.
        job_start_ms: u64,
        /// The command (rank 0 refuses a result of another).
        kind: String,
        /// The command's result.
        body: serde_json::Value,
        /// Its errors.
        errors: Vec<String>,
    },
    /// A rank reached barrier `n` (1-based) of its run.
    Arrived {
        /// The barrier.
        n: u32,
    },
    /// Every rank reached barrier `n`: go on.
    Proceed {
        /// The barrier.
        n: u32,
    },
    /// Rank 0 got the result.
    Done,
    /// Stop the jobs and send what you measured.
    Abort {
        /// Why.
        reason: String,
    },
}

/// A message and the token that authenticates it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Frame {
    /// The shared token.
    pub token: String,
    /// The message.
    pub msg: Msg,
}

/// Writes one frame.
pub fn send(w: &mut impl Write, token: &str, msg: &Msg) -> Result<()> {
    let body = serde_json::to_vec(&Frame {
        token: token.to_string(),
        msg: msg.clone(),
    })?;
    let len = u32::try_from(body.len()).ok().filter(|n| *n <= MAX_FRAME);
    let Some(len) = len else {
        bail!("message of {} bytes exceeds the frame limit", body.len());
    };
    let mut buf = Vec::with_capacity(body.len() + 4);
    buf.extend_from_slice(&len.to_be_bytes());
    buf.extend_from_slice(&body);
    w.write_all(&buf)?;
    w.flush()?;
    Ok(())
}

/// Reads one frame (the stream's read timeout bounds the wait).
pub fn recv(r: &mut impl Read) -> Result<Frame> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        bail!("frame of {len} bytes exceeds the limit of {MAX_FRAME} (not an iolens peer?)");
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .context("malformed frame (not an iolens peer, or another version?)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_garbage_is_refused() {
        let mut buf = Vec::new();
        send(
            &mut buf,
            "t",
            &Msg::Start {
                at_ms: 5,
                delay_ms: 7,
            },
        )
        .unwrap();
        let f = recv(&mut buf.as_slice()).unwrap();
        assert_eq!(f.token, "t");
        assert!(matches!(
            f.msg,
            Msg::Start {
                at_ms: 5,
                delay_ms: 7
            }
        ));
        let garbage = b"GET / HTTP/1.1\r\n\r\n";
        assert!(
            recv(&mut &garbage[..]).is_err(),
            "an HTTP request must not parse as a frame"
        );
    }
}
