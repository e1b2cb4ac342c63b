//! The Scape seed's `moveAndConfirm`, on the generated Scape client.
//!
//! ```js
//! async function moveAndConfirm(target) {
//!   let observation = await call('scape_observe');
//!   if (observation.status !== 'connected' || !observation.self) throw ..;
//!   const sessionId = observation.sessionId;
//!   const result = await call('scape_move_to', { x, y, floor: observation.self.floor, commandId });
//!   const deadline = Date.now() + 100_000;
//!   while (Date.now() < deadline) {
//!     observation = await call('scape_observe', { afterRevision: observation.revision, waitMs: 1000 });
//!     if (observation.sessionId !== sessionId) throw ..;
//!     const movement = observation.movement;
//!     if (!movement || movement.id !== result.operationId) continue;
//!     if (movement.status === 'arrived') return observation.self;
//!     if (movement.status !== 'moving') throw new Error(`Move ended: ${movement.status}`);
//!   }
//!   throw new Error('Movement was not confirmed; observe before deciding again.');
//! }
//! ```
//!
//! The clock is a parameter, so that the tests below run the 100 s deadline without waiting.
//! `main` moves an agent in a scripted, in-process Scape (no server needed):
//! `cargo run -p mcp-bindings --example move_and_confirm`; the tests run with
//! `cargo test -p mcp-bindings --example move_and_confirm`.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_bindgen::{CallToolResult, ToolCaller};
use mcp_bindings::scape::Client;
use mcp_bindings::scape::types::{
    AgentMovementStatus, AgentObservationSelf, Floor, ScapeMoveToArgs, ScapeObserveArgs,
};
use serde_json::{Map, Value, json};

/// "const deadline = Date.now() + 100_000".
pub const DEADLINE: Duration = Duration::from_secs(100);

/// The long-poll of each observation ("waitMs: 1000").
pub const WAIT: Duration = Duration::from_millis(1000);

/// Where time comes from.
pub trait Clock {
    /// Now.
    fn now(&self) -> Instant;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// Why a move was not confirmed.
#[derive(Debug)]
pub enum MoveError {
    /// "Wait for connected presence before moving": the status, or `self` was null.
    NotConnected {
        /// The observation's `status`.
        status: String,
    },
    /// "Session changed; discard the old movement request."
    SessionChanged {
        /// The session the move was sent in.
        was: String,
        /// The session now.
        now: String,
    },
    /// "Move ended: {status}": a terminal status other than `arrived`.
    Ended(AgentMovementStatus),
    /// "Movement was not confirmed; observe before deciding again." (the deadline passed).
    Unconfirmed,
    /// The call failed (transport, protocol, tool error, or a result that does not decode).
    Mcp(mcp_bindgen::Error),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::NotConnected { status } => write!(
                f,
                "wait for connected presence before moving (status {status:?})"
            ),
            MoveError::SessionChanged { was, now } => write!(
                f,
                "session changed ({was} -> {now}); discard the old movement request"
            ),
            MoveError::Ended(status) => write!(f, "move ended: {status}"),
            MoveError::Unconfirmed => write!(
                f,
                "movement was not confirmed; observe before deciding again"
            ),
            MoveError::Mcp(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MoveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MoveError::Mcp(e) => Some(e),
            _ => None,
        }
    }
}

impl From<mcp_bindgen::Error> for MoveError {
    fn from(e: mcp_bindgen::Error) -> Self {
        MoveError::Mcp(e)
    }
}

/// Moves to cell (`x`, `y`) on the current floor and waits until this very operation arrives.
///
/// `command_id` is the caller's retry identifier: keep it before dispatch to retry after losing
/// a response ("an old request must not be replayed into a new session").
pub async fn move_and_confirm<C: ToolCaller>(
    client: &Client<C>,
    (x, y): (i64, i64),
    command_id: &str,
    clock: &impl Clock,
) -> Result<AgentObservationSelf, MoveError> {
    let mut observation = client.scape_observe(&ScapeObserveArgs::default()).await?;
    let me = match &observation.self_ {
        Some(me) if observation.status == "connected" => me.clone(),
        _ => {
            return Err(MoveError::NotConnected {
                status: observation.status,
            });
        }
    };
    let session = observation.session_id.clone();
    let floor = Floor::try_from(*me.floor).map_err(|e| {
        mcp_bindgen::Error::transport(format!("floor {} is not a Scape floor: {e}", *me.floor))
    })?;
    let result = client
        .scape_move_to(&ScapeMoveToArgs {
            x,
            y,
            floor,
            command_id: Some(command_id.to_owned()),
        })
        .await?;
    let deadline = clock.now() + DEADLINE;
    while clock.now() < deadline {
        observation = client
            .scape_observe(&ScapeObserveArgs {
                after_revision: Some(observation.revision),
                wait_ms: Some(WAIT.as_millis() as u64),
            })
            .await?;
        if observation.session_id != session {
            return Err(MoveError::SessionChanged {
                was: session,
                now: observation.session_id,
            });
        }
        // An earlier move's `arrived` is not this move's.
        let Some(movement) = observation
            .movement
            .as_ref()
            .filter(|m| m.id == result.operation_id)
        else {
            continue;
        };
        match movement.status {
            AgentMovementStatus::Arrived => {
                return observation.self_.ok_or(MoveError::NotConnected {
                    status: observation.status,
                });
            }
            AgentMovementStatus::Moving => {}
            other => return Err(MoveError::Ended(other)),
        }
    }
    Err(MoveError::Unconfirmed)
}

/// A clock that only moves when told to.
#[derive(Debug)]
pub struct ManualClock {
    start: Instant,
    elapsed: Mutex<Duration>,
}

impl ManualClock {
    /// A clock at its start.
    pub fn new() -> Self {
        ManualClock {
            start: Instant::now(),
            elapsed: Mutex::new(Duration::ZERO),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        *self.elapsed.lock().unwrap_or_else(|e| e.into_inner()) += by;
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.start + *self.elapsed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the scripted Scape does with a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// Walks one cell per observation and arrives.
    Arrive,
    /// Walks, then reports `blocked` after this many observations.
    BlockAfter(u32),
    /// Walks, then the session changes after this many observations.
    NewSessionAfter(u32),
    /// Never gets anywhere: `moving` until the caller gives up.
    Stuck,
    /// Still connecting: `self` is null.
    Connecting,
}

#[derive(Debug)]
struct World {
    session: String,
    revision: i64,
    position: (i64, i64),
    floor: i64,
    /// The current movement: id, target, status.
    movement: Option<(String, (i64, i64), &'static str)>,
    /// A move received but not yet visible: the next observation still shows the previous
    /// movement (an earlier move's `arrived`), as a real server may.
    pending: Option<(String, (i64, i64))>,
    observations_since_move: u32,
    calls: Vec<(String, Value)>,
}

/// An in-process Scape that answers `scape_observe` and `scape_move_to` by a [`Script`], and
/// moves its clock by each observation's `waitMs` (a long-poll that waited it out).
#[derive(Debug)]
pub struct ScriptedScape<'c> {
    script: Script,
    clock: &'c ManualClock,
    world: Mutex<World>,
}

impl<'c> ScriptedScape<'c> {
    /// A Scape at (3, 4) on floor 1, where an earlier move has already arrived.
    pub fn new(script: Script, clock: &'c ManualClock) -> Self {
        ScriptedScape {
            script,
            clock,
            world: Mutex::new(World {
                session: "session-1".into(),
                revision: 10,
                position: (3, 4),
                floor: 1,
                movement: Some(("earlier-op".into(), (3, 4), "arrived")),
                pending: None,
                observations_since_move: 0,
                calls: Vec::new(),
            }),
        }
    }

    /// The calls received: tool name and arguments.
    pub fn calls(&self) -> Vec<(String, Value)> {
        self.world
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .calls
            .clone()
    }

    fn observe(&self, world: &mut World, arguments: &Map<String, Value>) -> Value {
        if let Some(wait) = arguments.get("waitMs").and_then(Value::as_u64) {
            self.clock.advance(Duration::from_millis(wait));
        }
        world.revision += 1;
        if world.observations_since_move == 0 && world.pending.is_some() {
            // The first observation after the move still shows the earlier one.
            world.observations_since_move = 1;
        } else if let Some((id, target)) = world.pending.take() {
            world.movement = Some((id, target, "moving"));
        }
        if let Some((_, target, status)) = &mut world.movement
            && *status == "moving"
        {
            world.observations_since_move += 1;
            let n = world.observations_since_move;
            match self.script {
                Script::BlockAfter(k) if n >= k => *status = "blocked",
                Script::NewSessionAfter(k) if n >= k => world.session = "session-2".into(),
                Script::Stuck => {}
                _ => {
                    let (x, y) = world.position;
                    world.position = (x + (target.0 - x).signum(), y + (target.1 - y).signum());
                    if world.position == *target {
                        *status = "arrived";
                    }
                }
            }
        }
        let (x, y) = world.position;
        let me = match self.script {
            Script::Connecting => Value::Null,
            _ => {
                json!({"x": x, "y": y, "floor": world.floor, "id": "agent-1", "name": "Scout", "text": ""})
            }
        };
        let movement = match &world.movement {
            Some((id, (tx, ty), status)) => {
                json!({"id": id, "target": {"x": tx, "y": ty, "floor": world.floor}, "status": status})
            }
            None => Value::Null,
        };
        json!({
            "protocol": 1,
            "sessionId": world.session,
            "revision": world.revision,
            "observedAt": 1767225600000_i64 + world.revision * 1000,
            "room": "lobby",
            "status": if self.script == Script::Connecting { "connecting" } else { "connected" },
            "self": me,
            "players": [],
            "objects": [],
            "blocked": [],
            "movement": movement,
            "limits": {"radius": 6, "heartbeatMs": 15000, "idleTimeoutMs": 120000, "maxSpeechLength": 320}
        })
    }
}

impl ToolCaller for ScriptedScape<'_> {
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, mcp_bindgen::Error> {
        let mut world = self.world.lock().unwrap_or_else(|e| e.into_inner());
        world
            .calls
            .push((name.to_owned(), Value::Object(arguments.clone())));
        let answer = match name {
            "scape_observe" => self.observe(&mut world, &arguments),
            "scape_move_to" => {
                let id = arguments
                    .get("commandId")
                    .and_then(Value::as_str)
                    .unwrap_or("server-generated")
                    .to_owned();
                let target = (
                    arguments
                        .get("x")
                        .and_then(Value::as_i64)
                        .unwrap_or_default(),
                    arguments
                        .get("y")
                        .and_then(Value::as_i64)
                        .unwrap_or_default(),
                );
                world.pending = Some((id.clone(), target));
                world.observations_since_move = 0;
                json!({"operationId": id, "commandId": id})
            }
            other => {
                return Ok(CallToolResult::error_text(
                    json!({"error": format!("{other} is not scripted"), "code": "UNSCRIPTED"})
                        .to_string(),
                ));
            }
        };
        Ok(CallToolResult::structured(answer))
    }
}

/// A command id in the seed's shape (`t{millis}_{unique}`), made before dispatch.
fn command_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("t{millis}_{}", std::process::id())
}

fn main() {
    let clock = ManualClock::new();
    let scape = ScriptedScape::new(Script::Arrive, &clock);
    let client = Client::new(&scape);
    match pollster::block_on(move_and_confirm(&client, (6, 4), &command_id(), &clock)) {
        Ok(me) => println!(
            "arrived at ({}, {}) on floor {} after {} calls",
            me.x,
            me.y,
            *me.floor,
            scape.calls().len()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pollster::block_on;

    fn run(
        script: Script,
    ) -> (
        Result<AgentObservationSelf, MoveError>,
        Vec<(String, Value)>,
        Duration,
    ) {
        let clock = ManualClock::new();
        let start = clock.now();
        let scape = ScriptedScape::new(script, &clock);
        let client = Client::new(&scape);
        let result = block_on(move_and_confirm(&client, (6, 4), "t1_abc", &clock));
        (result, scape.calls(), clock.now() - start)
    }

    #[test]
    fn moves_and_arrives() {
        let (result, calls, _) = run(Script::Arrive);
        let me = result.expect("arrives");
        assert_eq!((me.x, me.y, *me.floor), (6, 4, 1));
        // The move keeps the caller's command id and the observed floor.
        assert_eq!(
            calls[1],
            (
                "scape_move_to".to_owned(),
                json!({"x": 6, "y": 4, "floor": 1, "commandId": "t1_abc"})
            )
        );
        // Each later observation waits for a newer revision than the last one seen.
        assert_eq!(calls[0], ("scape_observe".to_owned(), json!({})));
        assert_eq!(
            calls[2],
            (
                "scape_observe".to_owned(),
                json!({"afterRevision": 11, "waitMs": 1000})
            )
        );
        assert_eq!(calls[3].1["afterRevision"], json!(12));
        assert_eq!(
            calls.len(),
            2 + 1 + 3,
            "one lagging observation, then three steps from x = 3 to x = 6"
        );
    }

    #[test]
    fn an_earlier_arrival_is_not_this_move() {
        // The first observation after the move still shows `earlier-op` arrived at (3, 4);
        // only this move's own `arrived` at (6, 4) confirms it.
        let (result, calls, _) = run(Script::Arrive);
        let me = result.expect("arrives");
        assert_eq!((me.x, me.y), (6, 4));
        assert!(calls.len() > 3, "{calls:?}");
    }

    #[test]
    fn blocked_ends_the_move() {
        let (result, _, _) = run(Script::BlockAfter(2));
        let err = result.expect_err("blocked");
        assert!(
            matches!(err, MoveError::Ended(AgentMovementStatus::Blocked)),
            "{err}"
        );
        assert_eq!(err.to_string(), "move ended: blocked");
    }

    #[test]
    fn a_new_session_fails_the_move() {
        let (result, _, _) = run(Script::NewSessionAfter(1));
        match result.expect_err("session changed") {
            MoveError::SessionChanged { was, now } => {
                assert_eq!((was.as_str(), now.as_str()), ("session-1", "session-2"));
            }
            other => panic!("expected SessionChanged, got {other}"),
        }
    }

    #[test]
    fn no_confirmation_within_100_seconds() {
        let (result, calls, elapsed) = run(Script::Stuck);
        assert!(matches!(result, Err(MoveError::Unconfirmed)), "{result:?}");
        assert_eq!(
            elapsed, DEADLINE,
            "gave up at the deadline, not before or long after"
        );
        assert_eq!(
            calls.len(),
            2 + 100,
            "one observation per second of waiting"
        );
    }

    #[test]
    fn not_connected_sends_no_move() {
        let (result, calls, _) = run(Script::Connecting);
        assert!(
            matches!(result, Err(MoveError::NotConnected { ref status }) if status == "connecting")
        );
        assert_eq!(calls.len(), 1, "only the first observation: {calls:?}");
    }
}
