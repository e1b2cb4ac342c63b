//! [`ServerConfig`]: what to generate for one server, as build.rs, `bindings.toml` and the CLI
//! say it.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// What to generate for one server: the module name, its capture and agent contracts, result
/// types, overrides and renames. Shared by [`Builder`](crate::Builder), the `bindings.toml`
/// manifest and the CLI.
///
/// ```
/// use mcp_bindgen_codegen::ServerConfig;
///
/// let config = ServerConfig::new("scape", "captures/scape.tools.json")
///     .with_contract("contracts/agent_contracts.d.ts")
///     .with_result("scape_observe", "AgentObservation")
///     .with_override("AgentPosition.x", "integer")
///     .with_variant_name("AgentSceneObjectConveyorEmoji", "\u{27a1}\u{fe0f}", "Right");
/// assert_eq!(config.contracts.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The Rust module name (`saving_throw`).
    #[serde(skip)]
    pub module: String,
    /// The captured `tools/list` (see [`capture`](crate::capture)); without one, only the
    /// contracts' types are generated.
    #[serde(default)]
    pub capture: Option<PathBuf>,
    /// Agent-contract TypeScript declaration files (`.d.ts`): every interface, type alias and
    /// `declare const` becomes a Rust type or constant in `types`.
    #[serde(default)]
    pub contracts: Vec<PathBuf>,
    /// The server's name in docs ("Saving Throw"); default: the capture's `serverInfo`.
    #[serde(default)]
    pub name: Option<String>,
    /// Tool name → method name, for collisions and taste.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    /// Tool name → its result type, a TypeScript type over the contracts (`"AgentObservation"`,
    /// `"AgentPosition[]"`). Wins over the tool's `outputSchema`.
    #[serde(default)]
    pub results: BTreeMap<String, String>,
    /// Replaces a contract type (`"Type"`) or member (`"Type.field"`, `"Type.inline.field"`) by
    /// a TypeScript type; `integer`, `i8`..`i64`, `u8`..`u64`, `f32` and `f64` name Rust's
    /// numbers (`"AgentPosition.x" = "integer"`).
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
    /// Enum type → wire value → variant name, for variants whose generated name you want to
    /// choose (`"➡️" = "Right"`; for a union tagged by a boolean, `"true" = "Entered"`).
    #[serde(default)]
    pub variants: BTreeMap<String, BTreeMap<String, String>>,
}

impl ServerConfig {
    /// A config for module `module` generated from the capture at `capture`.
    pub fn new(module: impl Into<String>, capture: impl Into<PathBuf>) -> Self {
        ServerConfig {
            module: module.into(),
            capture: Some(capture.into()),
            ..Default::default()
        }
    }

    /// A config for module `module` with no capture: only the types of its contracts (add
    /// them with [`ServerConfig::with_contract`]).
    pub fn contracts_only(module: impl Into<String>) -> Self {
        ServerConfig {
            module: module.into(),
            ..Default::default()
        }
    }

    /// Sets the server's display name used in docs.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Gives tool `tool` the method name `method` (and `{method}_raw`).
    pub fn with_rename(mut self, tool: impl Into<String>, method: impl Into<String>) -> Self {
        self.rename.insert(tool.into(), method.into());
        self
    }

    /// Adds an agent-contract declaration file (`.d.ts`).
    pub fn with_contract(mut self, path: impl Into<PathBuf>) -> Self {
        self.contracts.push(path.into());
        self
    }

    /// Types the result of `tool` as `ty`, a TypeScript type over the contracts.
    pub fn with_result(mut self, tool: impl Into<String>, ty: impl Into<String>) -> Self {
        self.results.insert(tool.into(), ty.into());
        self
    }

    /// Replaces the type of contract type or member `path` (`"AgentPosition.x"`) by `ty`.
    pub fn with_override(mut self, path: impl Into<String>, ty: impl Into<String>) -> Self {
        self.overrides.insert(path.into(), ty.into());
        self
    }

    /// Names the variant of enum `ty` for wire value `value`.
    pub fn with_variant_name(
        mut self,
        ty: impl Into<String>,
        value: impl Into<String>,
        variant: impl Into<String>,
    ) -> Self {
        self.variants
            .entry(ty.into())
            .or_default()
            .insert(value.into(), variant.into());
        self
    }

    /// The input files, as named: the capture, then the contracts.
    pub fn inputs(&self) -> Vec<PathBuf> {
        self.capture
            .iter()
            .chain(&self.contracts)
            .cloned()
            .collect()
    }
}
