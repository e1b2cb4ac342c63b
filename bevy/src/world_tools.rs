//! The built-in world tools, on Bevy's reflection (the app's `AppTypeRegistry`): components
//! and resources by type path, values in reflection's serde form.

use std::collections::BTreeMap;

use bevy_ecs::entity::Entity;
use bevy_ecs::reflect::{
    AppTypeRegistry, ReflectComponent, ReflectEvent, ReflectMessage, ReflectResource,
};
use bevy_ecs::resource::IsResource;
use bevy_ecs::world::World;
use bevy_reflect::TypeRegistry;
use mcp_bindgen::server::{Handler, McpTool, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::reflect::{self, Reflected, component, entity, from_json, registration, to_json};

/// The app's type registry (shared handle), or a tool error when the world has none.
fn types(world: &World) -> Result<AppTypeRegistry, ToolError> {
    world
        .get_resource::<AppTypeRegistry>()
        .cloned()
        .ok_or_else(|| {
            ToolError::new("the world has no AppTypeRegistry").with_code("no_reflection")
        })
}

/// Component values by type path.
pub type Components = BTreeMap<String, Reflected>;

/// Every reflectable component `e` has (resources excluded), as JSON.
fn all_components(
    world: &World,
    types: &AppTypeRegistry,
    registry: &TypeRegistry,
    e: Entity,
) -> Result<Components, ToolError> {
    let entity_ref = world.entity(e);
    let mut out = Components::new();
    for &id in entity_ref.archetype().components() {
        let Some(type_id) = world.components().get_info(id).and_then(|i| i.type_id()) else {
            continue;
        };
        let Some(registration) = registry.get(type_id) else {
            continue;
        };
        if registration.data::<ReflectResource>().is_some() {
            continue;
        }
        let Some(reflect) = registration.data::<ReflectComponent>() else {
            continue;
        };
        if let Some(value) = reflect.reflect(entity_ref) {
            let path = registration.type_info().type_path();
            out.insert(
                path.to_owned(),
                Reflected::of(value.as_partial_reflect(), registry, types, path)?,
            );
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------

/// List the reflectable components, resources, messages and events of the app, each with the JSON Schema of its value
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct ComponentsInfo {
    /// Only types whose path contains this text (case-sensitive).
    #[serde(default)]
    pub filter: Option<String>,
}

/// One reflected type.
#[derive(Serialize, JsonSchema, Debug)]
pub struct TypeEntry {
    /// The full type path (what the other tools take).
    pub type_path: String,
    /// The short path.
    pub short_path: String,
    /// What it is: `component`, `resource`, `message`, `event`.
    pub kinds: Vec<String>,
    /// The JSON Schema of its value.
    pub schema: Value,
}

/// The reflected types.
#[derive(Serialize, JsonSchema, Debug)]
pub struct TypesInfo {
    /// Components, resources, messages and events, sorted by type path.
    pub types: Vec<TypeEntry>,
}

impl Handler<World> for ComponentsInfo {
    type Output = TypesInfo;
    fn call(self, world: &mut World) -> Result<TypesInfo, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let mut out: Vec<TypeEntry> = registry
            .iter()
            .filter_map(|registration| {
                let kinds = reflect::kinds(registration);
                let info = registration.type_info();
                let path = info.type_path();
                if kinds.is_empty() || self.filter.as_deref().is_some_and(|f| !path.contains(f)) {
                    return None;
                }
                Some(TypeEntry {
                    type_path: path.to_owned(),
                    short_path: info.type_path_table().short_path().to_owned(),
                    kinds: kinds.into_iter().map(str::to_owned).collect(),
                    schema: reflect::schema(&registry, info),
                })
            })
            .collect();
        out.sort_by(|a, b| a.type_path.cmp(&b.type_path));
        Ok(TypesInfo { types: out })
    }
}

// ---------------------------------------------------------------------------------------------

/// Find entities having all `with` components and none of `without`, with their values; paged by `limit` and `cursor`
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct Query {
    /// Component type paths the entities must have; their values are returned. Empty: every
    /// entity, with all its reflectable components.
    #[serde(default)]
    pub with: Vec<String>,
    /// Component type paths the entities must not have.
    #[serde(default)]
    pub without: Vec<String>,
    /// At most this many entities (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10000))]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// An entity and component values.
#[derive(Serialize, JsonSchema, Debug)]
pub struct EntityRow {
    /// The entity's bits (what the other tools take).
    pub entity: u64,
    /// Component values by type path.
    pub components: Components,
}

/// One page of entities.
#[derive(Serialize, JsonSchema, Debug)]
pub struct QueryPage {
    /// The entities of this page, in increasing entity order.
    pub entities: Vec<EntityRow>,
    /// How many entities match in all.
    pub total: u64,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl Handler<World> for Query {
    type Output = QueryPage;
    fn call(self, world: &mut World) -> Result<QueryPage, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let after = match &self.cursor {
            None => None,
            Some(c) => Some(c.parse::<u64>().map_err(|_| {
                ToolError::new(format!("cursor `{c}` is not one this server gave"))
                    .with_code("bad_cursor")
            })?),
        };
        let limit = self.limit.unwrap_or(100).max(1) as usize;
        let with = self
            .with
            .iter()
            .map(|p| component(&registry, world, p))
            .collect::<Result<Vec<_>, _>>()?;
        let without = self
            .without
            .iter()
            .map(|p| component(&registry, world, p))
            .collect::<Result<Vec<_>, _>>()?;
        let mut builder = bevy_ecs::query::QueryBuilder::<Entity>::new(world);
        builder.without::<IsResource>();
        for c in &with {
            builder.with_id(c.id);
        }
        for c in &without {
            builder.without_id(c.id);
        }
        let mut state = builder.build();
        let mut matching: Vec<u64> = state.iter(world).map(Entity::to_bits).collect();
        matching.sort_unstable();
        let total = matching.len() as u64;
        let start = after.map_or(0, |a| matching.partition_point(|&e| e <= a));
        let page = &matching[start..(start + limit).min(matching.len())];
        let mut entities = Vec::with_capacity(page.len());
        for &bits in page {
            let e = Entity::from_bits(bits);
            let components = if with.is_empty() {
                all_components(world, &types, &registry, e)?
            } else {
                let entity_ref = world.entity(e);
                let mut values = Components::new();
                for c in &with {
                    if let Some(value) = c.reflect.reflect(entity_ref) {
                        values.insert(
                            c.path.to_owned(),
                            Reflected::of(value.as_partial_reflect(), &registry, &types, c.path)?,
                        );
                    }
                }
                values
            };
            entities.push(EntityRow {
                entity: bits,
                components,
            });
        }
        let next_cursor = (start + page.len() < matching.len())
            .then(|| page.last().map(u64::to_string))
            .flatten();
        Ok(QueryPage {
            entities,
            total,
            next_cursor,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Read an entity's components (all reflectable ones, or those named)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct Get {
    /// The entity's bits.
    pub entity: u64,
    /// Component type paths; absent: all reflectable components.
    #[serde(default)]
    pub components: Option<Vec<String>>,
}

impl Handler<World> for Get {
    type Output = EntityRow;
    fn call(self, world: &mut World) -> Result<EntityRow, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let e = entity(world, self.entity)?;
        let components = match &self.components {
            None => all_components(world, &types, &registry, e)?,
            Some(paths) => {
                let mut values = Components::new();
                for path in paths {
                    let c = component(&registry, world, path)?;
                    let Some(value) = c.reflect.reflect(world.entity(e)) else {
                        return Err(missing(self.entity, c.path));
                    };
                    values.insert(
                        c.path.to_owned(),
                        Reflected::of(value.as_partial_reflect(), &registry, &types, c.path)?,
                    );
                }
                values
            }
        };
        Ok(EntityRow {
            entity: self.entity,
            components,
        })
    }
}

fn missing(entity: u64, path: &str) -> ToolError {
    ToolError::new(format!("entity {entity} has no `{path}` component"))
        .with_code("missing_component")
}

// ---------------------------------------------------------------------------------------------

/// Insert whole component values on an entity, replacing those it has
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct Insert {
    /// The entity's bits.
    pub entity: u64,
    /// Component values by type path (see components_info for their schemas).
    pub components: BTreeMap<String, Value>,
}

/// The entity's components after the change.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Changed {
    /// The entity's bits.
    pub entity: u64,
    /// The values of the components the call named, as stored now.
    pub components: Components,
}

/// Component values read from JSON, by type path.
type Parsed = Vec<(&'static str, Box<dyn bevy_reflect::PartialReflect>)>;

/// Reads every value first, so a value that does not fit changes nothing.
fn read_values(
    registry: &TypeRegistry,
    world: &mut World,
    values: &BTreeMap<String, Value>,
) -> Result<Parsed, ToolError> {
    let mut out = Vec::with_capacity(values.len());
    for (path, value) in values {
        let c = component(registry, world, path)?;
        let registration = registration(registry, c.path)?;
        out.push((
            c.path,
            from_json(
                registration,
                registry,
                value,
                &format!("the value of `{path}`"),
            )?,
        ));
    }
    Ok(out)
}

fn values_of(
    world: &World,
    types: &AppTypeRegistry,
    registry: &TypeRegistry,
    e: Entity,
    paths: &[&'static str],
) -> Result<Components, ToolError> {
    let mut out = Components::new();
    for path in paths {
        let registration = registration(registry, path)?;
        if let Some(reflect) = registration.data::<ReflectComponent>()
            && let Some(value) = reflect.reflect(world.entity(e))
        {
            out.insert(
                (*path).to_owned(),
                Reflected::of(value.as_partial_reflect(), registry, types, path)?,
            );
        }
    }
    Ok(out)
}

impl Handler<World> for Insert {
    type Output = Changed;
    fn call(self, world: &mut World) -> Result<Changed, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let e = entity(world, self.entity)?;
        let values = read_values(&registry, world, &self.components)?;
        let paths: Vec<&'static str> = values.iter().map(|(p, _)| *p).collect();
        let mut entity_mut = world.entity_mut(e);
        for (path, value) in &values {
            let registration = registration(&registry, path)?;
            if let Some(reflect) = registration.data::<ReflectComponent>() {
                reflect.insert(&mut entity_mut, value.as_ref(), &registry);
            }
        }
        Ok(Changed {
            entity: self.entity,
            components: values_of(world, &types, &registry, e, &paths)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Change named fields of one component on an entity, leaving its other fields as they are
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct Modify {
    /// The entity's bits.
    pub entity: u64,
    /// The component's type path.
    pub component: String,
    /// New values by field path (`x`, `inner.y`, `list[2]`, `.0`: reflection paths).
    pub fields: BTreeMap<String, Value>,
}

impl Handler<World> for Modify {
    type Output = Changed;
    fn call(self, world: &mut World) -> Result<Changed, ToolError> {
        use bevy_reflect::GetPath;
        let types = types(world)?;
        let registry = types.read();
        let e = entity(world, self.entity)?;
        let c = component(&registry, world, &self.component)?;
        if world
            .components()
            .get_info(c.id)
            .is_some_and(|i| !i.mutable())
        {
            return Err(ToolError::new(format!(
                "`{}` is an immutable component: use insert",
                c.path
            ))
            .with_code("immutable"));
        }
        // Every field is read and checked before any is changed.
        let mut changes = Vec::with_capacity(self.fields.len());
        {
            let Some(current) = c.reflect.reflect(world.entity(e)) else {
                return Err(missing(self.entity, c.path));
            };
            for (field, value) in &self.fields {
                let target = current.reflect_path(field.as_str()).map_err(|err| {
                    ToolError::new(format!("`{}` has no field `{field}`: {err}", c.path))
                        .with_code("no_such_field")
                })?;
                let field_type = target
                    .get_represented_type_info()
                    .and_then(|info| registry.get(info.type_id()))
                    .ok_or_else(|| {
                        ToolError::new(format!(
                            "field `{field}` of `{}` has a type not registered for reflection ({})",
                            c.path,
                            target.reflect_type_path()
                        ))
                        .with_code("unknown_type")
                    })?;
                let parsed = from_json(
                    field_type,
                    &registry,
                    value,
                    &format!("the value of field `{field}`"),
                )?;
                changes.push((field.as_str(), parsed));
            }
        }
        let mut entity_mut = world.entity_mut(e);
        let Some(mut target) = c.reflect.reflect_mut(&mut entity_mut) else {
            return Err(missing(self.entity, c.path));
        };
        for (field, value) in &changes {
            let slot = target.reflect_path_mut(*field).map_err(|err| {
                ToolError::new(format!("`{}` has no field `{field}`: {err}", c.path))
                    .with_code("no_such_field")
            })?;
            slot.try_apply(value.as_ref()).map_err(|err| {
                ToolError::new(format!("field `{field}` of `{}`: {err}", c.path))
                    .with_code("bad_value")
            })?;
        }
        Ok(Changed {
            entity: self.entity,
            components: values_of(world, &types, &registry, e, &[c.path])?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Remove components from an entity
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(destructive, idempotent)]
pub struct Remove {
    /// The entity's bits.
    pub entity: u64,
    /// Component type paths.
    pub components: Vec<String>,
}

/// What `remove` did.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Removed {
    /// The entity's bits.
    pub entity: u64,
    /// The components it had and no longer has.
    pub removed: Vec<String>,
    /// The components named that it did not have.
    pub absent: Vec<String>,
}

impl Handler<World> for Remove {
    type Output = Removed;
    fn call(self, world: &mut World) -> Result<Removed, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let e = entity(world, self.entity)?;
        let targets = self
            .components
            .iter()
            .map(|p| component(&registry, world, p))
            .collect::<Result<Vec<_>, _>>()?;
        let (mut removed, mut absent) = (Vec::new(), Vec::new());
        let mut entity_mut = world.entity_mut(e);
        for c in targets {
            if entity_mut.contains_id(c.id) {
                entity_mut.remove_by_id(c.id);
                removed.push(c.path.to_owned());
            } else {
                absent.push(c.path.to_owned());
            }
        }
        Ok(Removed {
            entity: self.entity,
            removed,
            absent,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Spawn an entity with the given components
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
pub struct Spawn {
    /// Component values by type path (may be empty).
    #[serde(default)]
    pub components: BTreeMap<String, Value>,
}

/// The entity spawned.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Spawned {
    /// The new entity's bits.
    pub entity: u64,
}

impl Handler<World> for Spawn {
    type Output = Spawned;
    fn call(self, world: &mut World) -> Result<Spawned, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let values = read_values(&registry, world, &self.components)?;
        let mut entity_mut = world.spawn_empty();
        for (path, value) in &values {
            let registration = registration(&registry, path)?;
            if let Some(reflect) = registration.data::<ReflectComponent>() {
                reflect.insert(&mut entity_mut, value.as_ref(), &registry);
            }
        }
        Ok(Spawned {
            entity: entity_mut.id().to_bits(),
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Despawn an entity (and its descendants, as Bevy's despawn does)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(destructive)]
pub struct Despawn {
    /// The entity's bits.
    pub entity: u64,
}

/// The entity despawned.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Despawned {
    /// Its bits.
    pub entity: u64,
}

impl Handler<World> for Despawn {
    type Output = Despawned;
    fn call(self, world: &mut World) -> Result<Despawned, ToolError> {
        let e = entity(world, self.entity)?;
        if world.get::<IsResource>(e).is_some() {
            return Err(ToolError::new(format!(
                "entity {} holds a resource: use resource tools",
                self.entity
            ))
            .with_code("not_a_component"));
        }
        world.despawn(e);
        Ok(Despawned {
            entity: self.entity,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// The resource type `path`: its registration's `ReflectComponent` and component id.
fn resource<'r>(
    registry: &'r TypeRegistry,
    world: &mut World,
    path: &str,
) -> Result<
    (
        &'static str,
        &'r ReflectComponent,
        bevy_ecs::component::ComponentId,
    ),
    ToolError,
> {
    let registration = registration(registry, path)?;
    let full = registration.type_info().type_path();
    let (Some(_), Some(reflect)) = (
        registration.data::<ReflectResource>(),
        registration.data::<ReflectComponent>(),
    ) else {
        return Err(ToolError::new(format!(
            "`{full}` is registered but not as a resource (it lacks #[reflect(Resource)])"
        ))
        .with_code("not_a_resource"));
    };
    Ok((full, reflect, reflect.register_component(world)))
}

/// Read a resource's value
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(read_only, idempotent, when_crashed)]
pub struct ResourceGet {
    /// The resource's type path.
    pub resource: String,
}

/// A resource's value.
#[derive(Serialize, JsonSchema, Debug)]
pub struct ResourceValue {
    /// Its type path.
    pub resource: String,
    /// Its value.
    pub value: Value,
}

impl Handler<World> for ResourceGet {
    type Output = ResourceValue;
    fn call(self, world: &mut World) -> Result<ResourceValue, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let (path, reflect, id) = resource(&registry, world, &self.resource)?;
        resource_value(world, &registry, reflect, id, path)
    }
}

/// The resource's value as the tools answer it.
fn resource_value(
    world: &World,
    registry: &TypeRegistry,
    reflect: &ReflectComponent,
    id: bevy_ecs::component::ComponentId,
    path: &str,
) -> Result<ResourceValue, ToolError> {
    let value = world
        .resource_entities()
        .get(id)
        .and_then(|e| reflect.reflect(world.entity(e)))
        .ok_or_else(|| absent(path))?;
    Ok(ResourceValue {
        resource: path.to_owned(),
        value: to_json(value.as_partial_reflect(), registry, path)?,
    })
}

fn absent(path: &str) -> ToolError {
    ToolError::new(format!("the resource `{path}` is not in the world"))
        .with_code("missing_resource")
}

/// Set a resource's whole value (inserting it when absent)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
#[mcp(idempotent)]
pub struct ResourceSet {
    /// The resource's type path.
    pub resource: String,
    /// Its new value (see components_info for its schema).
    pub value: Value,
}

impl Handler<World> for ResourceSet {
    type Output = ResourceValue;
    fn call(self, world: &mut World) -> Result<ResourceValue, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let (path, reflect, id) = resource(&registry, world, &self.resource)?;
        let registration = registration(&registry, path)?;
        let value = from_json(registration, &registry, &self.value, "the value")?;
        world.insert_reflect_resource(id, value);
        resource_value(world, &registry, reflect, id, path)
    }
}

// ---------------------------------------------------------------------------------------------

/// Send a reflected message (read by systems next frame) or trigger a reflected event (observers run now)
#[derive(McpTool, Deserialize, JsonSchema, Debug)]
pub struct SendEvent {
    /// The message's or event's type path.
    pub event: String,
    /// Its value; absent for a type without fields.
    #[serde(default)]
    pub value: Option<Value>,
}

/// What `send_event` did.
#[derive(Serialize, JsonSchema, Debug)]
pub struct Sent {
    /// The type path.
    pub event: String,
    /// `message` (written) or `event` (triggered).
    pub kind: String,
}

impl Handler<World> for SendEvent {
    type Output = Sent;
    fn call(self, world: &mut World) -> Result<Sent, ToolError> {
        let types = types(world)?;
        let registry = types.read();
        let registration = registration(&registry, &self.event)?;
        let path = registration.type_info().type_path();
        // No value: a type without fields (`{}` as reflection reads a struct).
        let empty = Value::Object(serde_json::Map::new());
        let value = from_json(
            registration,
            &registry,
            self.value.as_ref().unwrap_or(&empty),
            "the value",
        )?;
        let kind = if let Some(message) = registration.data::<ReflectMessage>() {
            message.write_message(world, value.as_ref(), &registry);
            "message"
        } else if let Some(event) = registration.data::<ReflectEvent>() {
            event.trigger(world, value.as_ref(), &registry);
            "event"
        } else {
            return Err(ToolError::new(format!(
                "`{path}` is registered but neither as a message (#[reflect(Message)]) nor as an event (#[reflect(Event)])"
            ))
            .with_code("not_an_event"));
        };
        Ok(Sent {
            event: path.to_owned(),
            kind: kind.to_owned(),
        })
    }
}
