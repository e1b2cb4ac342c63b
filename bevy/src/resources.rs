//! What the plugin serves beside its tools, with no code of the game's: the log as the resource
//! `bevy://logs`, and each entity as `bevy://entity/{entity}` (its reflectable components, as
//! `get` gives them), whose `entity` variable completes from the world's entities.

use bevy_ecs::entity::Entity;
use bevy_ecs::world::World;
use mcp_bindgen::ResourceContents;
use mcp_bindgen::server::{
    CompletionRef, Handler, Registry, ResourceDefinition, TemplateDefinition, ToolError,
    complete_from,
};
use serde::Deserialize;

use crate::app_tools::Logs;
use crate::logs::{self, Level};
use crate::world_tools::Get;

/// The log resource's URI.
pub(crate) const LOGS: &str = "bevy://logs";
/// The entity template.
pub(crate) const ENTITY: &str = "bevy://entity/{entity}";

/// How many of the newest records `bevy://logs` holds.
const LOG_RECORDS: usize = 200;

#[derive(Deserialize)]
struct EntityVar {
    entity: u64,
}

pub(crate) fn register(registry: &mut Registry<World>) {
    registry
        .register_resource(
            ResourceDefinition::new(LOGS, "logs")
                .title("Log")
                .description(format!(
                    "The newest {LOG_RECORDS} log records of the game, oldest first \
                     (get_logs pages through all of them)"
                ))
                .mime_type("application/json"),
            |_| {
                let (records, last_seq) = logs::read(0, Level::Trace, usize::MAX);
                let skip = records.len().saturating_sub(LOG_RECORDS);
                let newest = Logs {
                    records: records.into_iter().skip(skip).collect(),
                    last_seq,
                };
                let text = serde_json::to_string(&newest)
                    .map_err(|e| ToolError::new(format!("the log is not JSON: {e}")))?;
                Ok(vec![ResourceContents::text(LOGS, "application/json", text)])
            },
        )
        .register_template(
            TemplateDefinition::new(ENTITY, "entity")
                .description(
                    "An entity's reflectable components by type path (the entity's bits as \
                     query and get give them)",
                )
                .mime_type("application/json"),
            |world, uri, EntityVar { entity }| {
                let row = Get {
                    entity,
                    components: None,
                }
                .call(world)
                .map_err(|e| match e.code.as_deref() {
                    Some("no_such_entity") => e.with_code("not_found"),
                    _ => e,
                })?;
                let text = serde_json::to_string(&row)
                    .map_err(|e| ToolError::new(format!("the entity is not JSON: {e}")))?;
                Ok(vec![ResourceContents::text(uri, "application/json", text)])
            },
        )
        .register_completion(
            CompletionRef::Resource(ENTITY.into()),
            "entity",
            |world, typed, _| {
                let mut bits: Vec<u64> = world
                    .query::<Entity>()
                    .iter(world)
                    .map(Entity::to_bits)
                    .collect();
                bits.sort_unstable();
                complete_from(bits.iter().map(u64::to_string), typed)
            },
        );
}
