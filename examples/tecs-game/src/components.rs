//! The game's components, and the reflection table the debug tools use to read and write them
//! by name.

use hecs::{Entity, World};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Position and rotation in the 2D world.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Transform2D {
    /// World X.
    pub x: f32,
    /// World Y.
    pub y: f32,
    /// Radians.
    pub rotation: f32,
}

/// Movement per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Velocity {
    /// X per second.
    pub dx: f32,
    /// Y per second.
    pub dy: f32,
}

/// Hit points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// Current.
    pub hp: i32,
    /// Maximum.
    pub max: i32,
}

/// A name for people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Label {
    /// The name.
    pub text: String,
}

/// Reads and writes one component type by name, as JSON.
pub struct ComponentKind {
    /// The component's name (its Rust type name).
    pub name: &'static str,
    /// Its JSON Schema.
    pub schema: fn() -> Value,
    /// Its value on an entity, if the entity has it.
    pub get: fn(&World, Entity) -> Option<Value>,
    /// Sets the whole value, adding the component if missing; returns whether it was added.
    pub set: fn(&mut World, Entity, Value) -> Result<bool, String>,
    /// Entities that have it.
    pub entities: fn(&World) -> Vec<Entity>,
}

impl std::fmt::Debug for ComponentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComponentKind")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn kind<T>(name: &'static str) -> ComponentKind
where
    T: hecs::Component + Clone + Serialize + DeserializeOwned + JsonSchema,
{
    ComponentKind {
        name,
        schema: || serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null),
        get: |world, entity| {
            world
                .get::<&T>(entity)
                .ok()
                .and_then(|c| serde_json::to_value(&*c).ok())
        },
        set: |world, entity, value| {
            let component: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
            let added = world.get::<&T>(entity).is_err();
            world
                .insert_one(entity, component)
                .map_err(|_| "no such entity".to_owned())?;
            Ok(added)
        },
        entities: |world| {
            let mut out: Vec<Entity> = world
                .query::<(Entity, &T)>()
                .iter()
                .map(|(e, _)| e)
                .collect();
            out.sort_by_key(|e| e.to_bits());
            out
        },
    }
}

/// Every component the tools know, in a stable order.
pub fn kinds() -> Vec<ComponentKind> {
    vec![
        kind::<Transform2D>("Transform2D"),
        kind::<Velocity>("Velocity"),
        kind::<Health>("Health"),
        kind::<Label>("Label"),
    ]
}

/// The kind called `name`.
pub fn find(name: &str) -> Option<ComponentKind> {
    kinds().into_iter().find(|k| k.name == name)
}
