//! OAuth end to end on one machine: a small authorization server ([`authorization`]), a dice
//! game that serves MCP behind it ([`Tavern`], its tools declared with `#[derive(McpTool)]`),
//! and the `sign-in` binary, a client that signs in through the browser.
//!
//! ```text
//! cargo run -p mcp-bindgen-example-oauth                 # the game and its authorization server
//! cargo run -p mcp-bindgen-example-oauth --bin sign-in   # in another terminal: sign in, roll
//! ```
//!
//! The game's server is protected with [`ProtectedResource`]: a request without a token is
//! answered `401` with a challenge naming its protected resource metadata, which names the
//! authorization server; the client registers there, sends the person's browser to its sign-in
//! page, takes the redirect on 127.0.0.1, exchanges the code for tokens, and sends the request
//! again with the token. The server asks the authorization server who each token speaks for.

use std::time::Duration;

use mcp_bindgen::server::{
    Handler, McpTool, ProtectedResource, Registry, Server, ServerBuilder, ToolError,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod authorization;

pub use authorization::AuthorizationServer;

/// The game: a tavern where agents roll dice.
#[derive(Debug)]
pub struct Tavern {
    /// Dice rolled since the game started.
    pub rolled: u64,
    seed: u64,
}

impl Tavern {
    /// A tavern whose dice are seeded from the clock.
    pub fn new() -> Tavern {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Tavern {
            rolled: 0,
            seed: nanos | 1,
        }
    }

    /// One die of `sides` sides (xorshift: fair enough for a tavern, not for a casino).
    fn die(&mut self, sides: u32) -> u32 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.rolled += 1;
        (self.seed % u64::from(sides)) as u32 + 1
    }
}

impl Default for Tavern {
    fn default() -> Self {
        Tavern::new()
    }
}

/// Rolls dice written as in tabletop games: `2d6` is two six-sided dice.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
pub struct Roll {
    /// `NdS`: N dice (1 to 100) of S sides (2 to 1000), e.g. `2d6` or `1d20`.
    pub dice: String,
}

/// What a roll came to.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Rolled {
    /// The dice as asked (`2d6`).
    pub dice: String,
    /// Each die's result.
    pub rolls: Vec<u32>,
    /// Their sum.
    pub total: u32,
}

impl Handler<Tavern> for Roll {
    type Output = Rolled;
    fn call(self, tavern: &mut Tavern) -> Result<Rolled, ToolError> {
        let bad = || {
            ToolError::new(format!(
                "`{}` is not NdS with N in 1..=100 and S in 2..=1000 (try 2d6)",
                self.dice
            ))
            .with_code("bad_dice")
        };
        let (count, sides) = self.dice.trim().split_once(['d', 'D']).ok_or_else(bad)?;
        let count: u32 = count
            .parse()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(bad)?;
        let sides: u32 = sides
            .parse()
            .ok()
            .filter(|s| (2..=1000).contains(s))
            .ok_or_else(bad)?;
        let rolls: Vec<u32> = (0..count).map(|_| tavern.die(sides)).collect();
        Ok(Rolled {
            total: rolls.iter().sum(),
            rolls,
            dice: self.dice,
        })
    }
}

/// How many dice the tavern has rolled since it opened.
#[derive(Debug, McpTool, Deserialize, JsonSchema)]
#[mcp(read_only)]
pub struct TavernStats {}

/// The tavern's count.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// Dice rolled so far.
    pub rolled: u64,
}

impl Handler<Tavern> for TavernStats {
    type Output = Stats;
    fn call(self, tavern: &mut Tavern) -> Result<Stats, ToolError> {
        Ok(Stats {
            rolled: tavern.rolled,
        })
    }
}

/// The game's tools.
pub fn registry() -> Registry<Tavern> {
    let mut registry = Registry::new("dice-tavern", env!("CARGO_PKG_VERSION"));
    registry.register::<Roll>().register::<TavernStats>();
    registry
}

/// The authorization server on `auth_port` and the game's MCP server on `port` behind it (0
/// picks a free port for either).
pub fn start(port: u16, auth_port: u16) -> std::io::Result<(Server<Tavern>, AuthorizationServer)> {
    let auth = AuthorizationServer::start(auth_port)?;
    let protect = ProtectedResource::new(auth.issuer(), auth.verifier())
        .scope("dice")
        .name("Dice tavern");
    let server = ServerBuilder::new()
        .port(port)
        .oauth(protect)
        .listen(registry())?;
    auth.allow_resource(&format!("http://127.0.0.1:{}/mcp", server.port()));
    Ok((server, auth))
}

/// One 60 Hz frame's share for answering MCP requests.
pub const POLL_BUDGET: Duration = Duration::from_millis(2);
