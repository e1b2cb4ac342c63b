//! TypeScript agent contracts → Rust, one mapping rule at a time: each rule's `.d.ts` snippet
//! generates a module whose text is a snapshot (`snapshots/contracts/{rule}.rs`) compiled into
//! this crate (`src/lib.rs`), and the tests below decode and re-encode real JSON with it.
//! Refresh the snapshots on purpose with
//! `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test contracts`.

use std::path::Path;

use mcp_bindgen_codegen::{Generator, ServerConfig};
use mcp_bindgen_tests::contracts as rules;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const COMMAND: &str = "UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test contracts";

/// Every mapping rule: its module name and its declarations.
const RULES: &[(&str, &str)] = &[
    (
        "interfaces",
        r#"
/** A point on the grid. */
export interface Point {
    x: number;
    y: number;
}
/** A point with a name: `extends` adds Point's members. */
export interface Named extends Point {
    /** Shown to players. */
    name: string;
}
/** A type alias of an object type is a struct too. */
export type Label = {
    text: string;
    visible: boolean;
};
"#,
    ),
    (
        "inline_objects",
        r#"
export interface Panel {
    /** Named `PanelSize`. */
    size: { w: number; h: number };
    /** The same shape: `PanelSize` again. */
    min: { w: number; h: number };
    meta: { tag: string };
}
export interface Window {
    /** Still the same shape, declared elsewhere: `PanelSize`. */
    extent: { w: number; h: number };
}
"#,
    ),
    (
        "arrays",
        r#"
export interface Lists {
    plain: string[];
    generic: Array<number>;
    readonlyArray: readonly boolean[];
    readonlyGeneric: ReadonlyArray<string>;
    nested: number[][];
    pair: [string, number];
    named: [x: number, y: number];
    objects: Array<{ id: string }>;
}
"#,
    ),
    (
        "string_literals",
        r#"
export interface Literals {
    mode: 'follow' | 'approach';
    /** The seed's conveyor directions: U+FE0F is part of each value. */
    conveyor: '➡️' | '⬇️' | '⬅️' | '⬆️';
    /** `'⬆'` and `'⬆️'` are different values. */
    arrow: '⬆' | '⬆️';
    status: 'awaiting_owner_approval';
    open: 'a' | string;
}
export type Editing = 'everyone' | 'owner';
"#,
    ),
    (
        "number_literals",
        r#"
export interface Numbers {
    floor: 0 | 1;
    protocol: 1;
    sign: -1 | 1;
    half: 0.5 | 1.5;
    flag: true;
    optionalFloor?: 0 | 1;
}
"#,
    ),
    (
        "tagged_unions",
        r#"
/** Told apart by a string. */
export type Shape =
    | { kind: 'circle'; radius: number }
    | { kind: 'square'; side: number };
/** Told apart by a boolean, as scape_enter's answer. */
export type Enter =
    | { entered: true; observation: string; inactivityTimeoutMs: number }
    | { entered: false; status: 'awaiting_owner_approval'; code?: string; expiresAt: number };
/** Told apart by a number. */
export type Versioned =
    | { version: 1; name: string }
    | { version: 2; title: string; tags: string[] };
export interface A { a: string }
export interface B { b: number }
/** Nothing tells these apart: tried in order. */
export type Either = A | B;
/** Scalars of several kinds. */
export type Scalar = string | number | boolean;
"#,
    ),
    (
        "optional_nullable",
        r#"
export interface Presence {
    /** Absent or a string; never null. */
    optional?: string;
    /** Always present; a string or null. */
    nullable: string | null;
    /** Absent, null, or a string: three states. */
    both?: string | null;
    /** `undefined` makes a member optional. */
    maybe: string | undefined;
    nested?: { id: string } | null;
}
"#,
    ),
    (
        "intersections",
        r#"
export interface Position {
    x: number;
    y: number;
    floor: 0 | 1;
}
export type Meta = { createdAt: number };
export interface Room {
    self: (Position & { id: string; name: string }) | null;
    players: Array<Position & Meta & { id: string; settled: boolean }>;
}
export type Tagged = Position & { tag?: string };
"#,
    ),
    (
        "maps",
        r#"
export interface Maps {
    scores: Record<string, number>;
    lookup: { [key: string]: string[] };
    fixedKeys: Record<'low' | 'high', number>;
    anything: unknown;
    whatever: any;
}
/** Named fields, and every other field kept as sent. */
export interface Open {
    id: string;
    [field: string]: unknown;
}
"#,
    ),
    (
        "recursive",
        r#"
export interface Tree {
    value: number;
    children: Tree[];
    parent?: Tree;
}
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
"#,
    ),
    (
        "generics",
        r#"
export interface Page<T = unknown> {
    items: T[];
    next?: string;
}
export interface Item { id: string }
export interface Listing {
    items: Page<Item>;
    names: Page<string>;
    raw: Page;
}
/** No default: only its instantiations are types. */
export interface Pair<A, B> { first: A; second: B }
export interface Uses { pair: Pair<string, number> }
"#,
    ),
    (
        "consts",
        r#"
export declare const MAX_STATUS_TEXT_LENGTH = 320;
export declare const GRID: {
    readonly width: 64;
    readonly height: 40;
};
/** A string constant. */
export declare const GATEWAY = "agent-gateway";
export declare const OFFSET = -3;
export declare const RATIO = 0.25;
export declare const ENABLED = true;
export declare const UNKNOWN: number;
"#,
    ),
    (
        "enums",
        r#"
/** A TypeScript enum keeps its member names. */
export enum Direction {
    Up = "UP",
    Down = "DOWN",
}
export enum Level {
    Low = 1,
    High,
}
export interface Move { direction: Direction; level: Level }
"#,
    ),
    (
        "builtins",
        r#"
export interface Item {
    id: string;
    label?: string;
    note: string | null;
}
/** A named list: the usual way to name a (recursive) array type. */
export interface Items extends Array<Item> {}
export interface Tree {
    name: string;
    children: Forest;
}
export interface Forest extends ReadonlyArray<Tree> {}
/** An array with members besides: only the array is typed (a warning). */
export interface Tagged extends Array<string> {
    tag: string;
}
export type ItemKey = keyof Item;
export type Flags = Record<ItemKey, boolean>;
export type Draft = Partial<Item>;
export type Complete = Required<Item>;
export type Frozen = Readonly<Item>;
export type Names = Readonly<string[]>;
export type Summary = Pick<Item, 'id' | 'label'>;
export type Bare = Omit<Item, 'note' | 'label'>;
export type Note = NonNullable<Item['note']>;
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Loud = Exclude<Level, 'debug' | 'info'>;
export type Quiet = Extract<Level, 'debug' | 'info' | 'trace'>;
"#,
    ),
    (
        "type_queries",
        r#"
export declare const PARSE_ERROR = -32700;
export declare const KINDS: {
    readonly circle: 'circle';
    readonly square: 'square';
};
export const LIMITS = { max: 10, unit: 'px' } as const;
export interface ParseError {
    code: typeof PARSE_ERROR;
    message: string;
}
export type Kind = (typeof KINDS)[keyof typeof KINDS];
export type KindName = keyof typeof KINDS;
export type Unit = typeof LIMITS.unit;
export interface Point {
    x: number;
    y: number;
    label?: string;
}
export type PointKey = keyof Point;
export type Coordinate = Point['x' | 'y'];
export interface Uses {
    key: PointKey;
    kind: Kind;
    unit: Unit;
    max: typeof LIMITS['max'];
    all: Point[keyof Point];
}
"#,
    ),
    (
        "narrowing",
        r#"
export declare const SOME_CODE = -32042;
export interface Base {
    code: number;
    message: string;
    data?: unknown;
}
/** `number & -32042` is `-32042`, as TypeScript computes it. */
export type Specific = Base & { code: typeof SOME_CODE };
export type Modes = { mode: 'a' | 'b' | 'c' } & { mode: 'b' | 'c' | 'd' };
export type Nested = { meta: { a: string } } & { meta: { b: number } };
/** A branded string is a string on the wire. */
export type Brand = string & { readonly __brand: 'Brand' };
/** `b?: never`: never present, so no field. */
export type OnlyA = { a: string; b?: never };
export interface Holder {
    brand: Brand;
    specific: Specific;
}
"#,
    ),
    (
        "left_out",
        r#"
export interface Point {
    x: number;
}
/** No JSON form: left out, with a warning. */
export type Callback = (value: string) => void;
/** A generic mapped type: left out. */
export type Upper = { [K in keyof Point]: string };
export interface Uses {
    ok: string;
    callback: Callback;
    upper?: Upper;
}
"#,
    ),
    (
        "unsupported_members",
        r#"
export interface Mixed {
    name: string;
    /** A function has no JSON form: Value, with a warning. */
    onChange: (value: string) => void;
    keys: keyof Mixed;
    mapped: { [K in 'a' | 'b']: number };
    method(): void;
    imported: ImportedFromElsewhere;
}
export declare function helper(): void;
"#,
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Generates `rule`'s module from its snippet (written to a temporary directory).
fn generate(rule: &str, text: &str) -> mcp_bindgen_codegen::Module {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = format!("{rule}.d.ts");
    std::fs::write(dir.path().join(&file), text.trim_start()).expect("write snippet");
    let config = ServerConfig::contracts_only(rule).with_contract(&file);
    Generator::new()
        .with_base(dir.path())
        .generate(&config)
        .unwrap_or_else(|e| panic!("{rule}: {e}"))
}

#[test]
fn every_rule_matches_its_snapshot() {
    for (rule, text) in RULES {
        let module = generate(rule, text);
        let mut out = module.to_module_file(COMMAND);
        if !module.warnings.is_empty() {
            out.push_str("\n// Warnings:\n");
            for warning in &module.warnings {
                out.push_str(&format!("// {warning}\n"));
            }
        }
        let snapshot = root().join(format!("snapshots/contracts/{rule}.rs"));
        expect_test::expect_file![snapshot].assert_eq(&out);
    }
}

#[test]
fn every_rule_snapshot_is_compiled() {
    let listing =
        std::fs::read_to_string(root().join("snapshots/contracts/mod.rs")).expect("mod.rs");
    for (rule, _) in RULES {
        assert!(
            listing.contains(&format!("pub mod {rule};")),
            "snapshots/contracts/{rule}.rs is not compiled: add `pub mod {rule};` to snapshots/contracts/mod.rs"
        );
    }
}

/// Decodes `json` as `T`, re-encodes it, and checks the JSON is unchanged.
fn round_trip<T: DeserializeOwned + Serialize>(json: Value) -> T {
    let value: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{json} does not decode: {e}"));
    let again = serde_json::to_value(&value).expect("encodes");
    assert_eq!(again, json, "re-encoding changed the JSON");
    value
}

fn refused<T: DeserializeOwned + std::fmt::Debug>(json: Value) -> String {
    serde_json::from_value::<T>(json.clone())
        .map(|v| panic!("{json} must not decode, got {v:?}"))
        .unwrap_err()
        .to_string()
}

#[test]
fn interfaces_extends_and_aliases_are_structs() {
    use rules::interfaces::types::*;
    let named: Named = round_trip(json!({"x": 1.5, "y": 2, "name": "spawn"}));
    assert_eq!((named.x, named.y, named.name.as_str()), (1.5, 2.0, "spawn"));
    // `extends` makes the base's members required too.
    assert!(refused::<Named>(json!({"name": "spawn", "x": 1})).contains("missing field `y`"));
    let label: Label = round_trip(json!({"text": "hi", "visible": false}));
    assert!(!label.visible);
    // TypeScript object types are open: an unknown field is ignored, not an error.
    let point: Point = serde_json::from_value(json!({"x": 0, "y": 0, "z": 9})).expect("decodes");
    assert_eq!(
        serde_json::to_value(point).expect("encodes"),
        json!({"x": 0, "y": 0})
    );
}

#[test]
fn identical_inline_objects_share_one_type() {
    use rules::inline_objects::types::*;
    let panel: Panel = round_trip(json!({
        "size": {"w": 2, "h": 1}, "min": {"w": 1, "h": 1}, "meta": {"tag": "main"}
    }));
    // One type for the three identical shapes (a compile-time check as much as a runtime one).
    let extent: PanelSize = panel.size.clone();
    let window = Window { extent };
    assert_eq!(window.extent, panel.size);
    assert_eq!(panel.meta.tag, "main");
}

#[test]
fn arrays_and_tuples() {
    use rules::arrays::types::*;
    let lists: Lists = round_trip(json!({
        "plain": ["a"], "generic": [1.5, 2.5], "readonlyArray": [true],
        "readonlyGeneric": ["b"], "nested": [[1.5], []], "pair": ["p", 1.5],
        "named": [3.5, 4.5], "objects": [{"id": "o1"}]
    }));
    assert_eq!(lists.pair, ("p".to_owned(), 1.5));
    assert_eq!(lists.named, (3.5, 4.5));
    assert_eq!(lists.objects[0].id, "o1");
    // A tuple has exactly its length.
    assert!(
        !refused::<Lists>(json!({
            "plain": [], "generic": [], "readonlyArray": [], "readonlyGeneric": [], "nested": [],
            "pair": ["p", 1, 2], "named": [0, 0], "objects": []
        }))
        .is_empty()
    );
}

#[test]
fn string_literal_unions_keep_exact_wire_strings() {
    use rules::string_literals::types::*;
    let literals: Literals = round_trip(json!({
        "mode": "approach", "conveyor": "\u{2b05}\u{fe0f}", "arrow": "\u{2b06}",
        "status": "awaiting_owner_approval", "open": "anything"
    }));
    assert_eq!(literals.mode, LiteralsMode::Approach);
    assert_eq!(literals.conveyor, LiteralsConveyor::LeftwardsBlackArrow);
    assert_eq!(literals.arrow, LiteralsArrow::UpwardsBlackArrow);
    // U+FE0F is part of the value: with it, it is the other variant.
    let emoji: LiteralsArrow = serde_json::from_value(json!("\u{2b06}\u{fe0f}")).expect("decodes");
    assert_eq!(emoji, LiteralsArrow::UpwardsBlackArrowEmoji);
    assert_eq!(
        serde_json::to_value(LiteralsConveyor::BlackRightwardsArrow).expect("encodes"),
        json!("\u{27a1}\u{fe0f}")
    );
    // Without U+FE0F it is not a conveyor direction.
    assert!(refused::<LiteralsConveyor>(json!("\u{27a1}")).contains("unknown variant"));
    assert!(refused::<LiteralsMode>(json!("chase")).contains("unknown variant"));
    assert!(
        refused::<LiteralsStatus>(json!("approved")).contains("unknown variant"),
        "a one-value literal accepts only its value"
    );
    let editing: Editing = round_trip(json!("owner"));
    assert_eq!(editing, Editing::Owner);
}

#[test]
fn number_literals_are_exact() {
    use rules::number_literals::types::*;
    let numbers: Numbers = round_trip(json!({
        "floor": 1, "protocol": 1, "sign": -1, "half": 1.5, "flag": true
    }));
    assert_eq!(*numbers.floor, 1);
    assert_eq!(numbers.protocol, NumbersProtocol);
    assert_eq!(NumbersProtocol::VALUE, 1);
    assert_eq!(*numbers.sign, -1);
    assert_eq!(numbers.flag, NumbersFlag);
    let base = json!({"floor": 0, "protocol": 1, "sign": 1, "half": 0.5, "flag": true});
    let with = |key: &str, value: Value| {
        let mut v = base.clone();
        v[key] = value;
        v
    };
    // `floor: 2` and `protocol: 2` do not decode, nor `flag: false`, nor `0.5` as an integer.
    assert!(
        refused::<Numbers>(with("floor", json!(2)))
            .contains("invalid Floor 2: not one of its values")
    );
    assert!(refused::<Numbers>(with("protocol", json!(2))).contains("invalid value 2, expected 1"));
    assert!(refused::<Numbers>(with("flag", json!(false))).contains("expected true"));
    assert!(!refused::<Numbers>(with("floor", json!(0.5))).is_empty());
    assert!(refused::<Numbers>(with("half", json!(1))).contains(": not one of its values"));
    // Integers stay integers on the wire.
    assert_eq!(
        serde_json::to_value(&numbers).expect("encodes")["floor"],
        json!(1)
    );
    assert!(Floor::try_from(2).is_err());
}

#[test]
fn object_unions_decode_the_right_variant_and_re_encode() {
    use rules::tagged_unions::types::*;
    let shape: Shape = round_trip(json!({"kind": "square", "side": 2}));
    assert_eq!(shape, Shape::Square { side: 2.0 });
    assert!(refused::<Shape>(json!({"kind": "hexagon", "side": 2})).contains("unknown variant"));

    // Boolean tag.
    let entered: Enter = round_trip(json!({
        "entered": true, "observation": "obs", "inactivityTimeoutMs": 30000
    }));
    match &entered {
        Enter::Entered(e) => assert_eq!(e.observation, "obs"),
        other => panic!("expected Entered, got {other:?}"),
    }
    let pending: Enter = round_trip(json!({
        "entered": false, "status": "awaiting_owner_approval", "expiresAt": 1767225600000_i64
    }));
    let Enter::NotEntered(p) = &pending else {
        panic!("expected NotEntered, got {pending:?}")
    };
    assert_eq!(p.code, None);
    let with_code: Enter = round_trip(json!({
        "entered": false, "status": "awaiting_owner_approval", "code": "PENDING", "expiresAt": 5
    }));
    assert!(matches!(with_code, Enter::NotEntered(ref p) if p.code.as_deref() == Some("PENDING")));
    // The tag decides: a pending answer that claims `entered: true` is refused, not guessed.
    assert!(
        refused::<Enter>(json!({
            "entered": true, "status": "awaiting_owner_approval", "expiresAt": 1
        }))
        .contains("missing field")
    );
    assert!(refused::<Enter>(json!({"entered": "yes"})).contains("expected true or false"));
    assert!(refused::<Enter>(json!({"observation": "o"})).contains("missing field `entered`"));

    // Number tag.
    let v2: Versioned = round_trip(json!({"version": 2, "title": "t", "tags": ["a"]}));
    assert!(matches!(v2, Versioned::Version2(ref v) if v.title == "t"));
    assert!(refused::<Versioned>(json!({"version": 3, "name": "n"})).contains("expected 1 or 2"));

    // No tag: the first member that fits.
    let either: Either = round_trip(json!({"b": 1}));
    assert!(matches!(either, Either::B(_)));
    let scalar: Scalar = round_trip(json!(true));
    assert_eq!(scalar, Scalar::Boolean(true));
}

#[test]
fn optional_and_nullable_stay_distinct() {
    use rules::optional_nullable::types::*;
    // Absent optional, null nullable, absent three-state.
    let absent: Presence = round_trip(json!({"nullable": null, "maybe": "m"}));
    assert_eq!(
        (absent.optional, absent.nullable, absent.both),
        (None, None, None)
    );
    // Present null in the three-state field stays null on the way out.
    let null: Presence =
        round_trip(json!({"nullable": "n", "both": null, "nested": null, "maybe": "m"}));
    assert_eq!(null.both, Some(None));
    assert_eq!(null.nested, Some(None));
    let value: Presence = round_trip(json!({
        "optional": "o", "nullable": "n", "both": "b", "nested": {"id": "x"}, "maybe": "m"
    }));
    assert_eq!(value.both, Some(Some("b".to_owned())));
    // `nullable` must be present.
    assert!(refused::<Presence>(json!({"maybe": "m"})).contains("missing field `nullable`"));
    // Leniency on the way in: a `null` where `f?: T` has none reads as absent (and is then
    // omitted), as serde reads `Option`.
    let lenient: Presence =
        serde_json::from_value(json!({"nullable": null, "optional": null, "maybe": "m"}))
            .expect("decodes");
    assert_eq!(lenient.optional, None);
    // Encoding: None is omitted for `f?`, written as null for `f: T | null`.
    let encoded = serde_json::to_value(Presence {
        optional: None,
        nullable: None,
        both: None,
        maybe: None,
        nested: None,
    })
    .expect("encodes");
    assert_eq!(encoded, json!({"nullable": null}));
}

#[test]
fn intersections_merge_into_one_struct() {
    use rules::intersections::types::*;
    let room: Room = round_trip(json!({
        "self": {"x": 1, "y": 2, "floor": 0, "id": "me", "name": "Me"},
        "players": [{"x": 3, "y": 4, "floor": 1, "createdAt": 9, "id": "p", "settled": true}]
    }));
    let me = room.self_.expect("self");
    assert_eq!((me.x, me.id.as_str(), *me.floor), (1.0, "me", 0));
    // The merged struct reuses Position's own `floor` type.
    let floor: PositionFloor = room.players[0].floor.clone();
    assert_eq!(*floor, 1);
    // Every part's members are required.
    assert!(
        refused::<RoomSelf>(json!({"x": 1, "y": 2, "floor": 0, "id": "me"}))
            .contains("missing field `name`")
    );
    let empty: Room = round_trip(json!({"self": null, "players": []}));
    assert!(empty.self_.is_none());
    let tagged: Tagged = round_trip(json!({"x": 0, "y": 0, "floor": 1}));
    assert!(tagged.tag.is_none());
}

#[test]
fn records_and_index_signatures_are_maps() {
    use rules::maps::types::*;
    let maps: Maps = round_trip(json!({
        "scores": {"a": 1.5}, "lookup": {"k": ["v"]}, "fixedKeys": {"low": 1, "high": 2},
        "anything": {"nested": [1, "two"]}, "whatever": null
    }));
    assert_eq!(maps.scores["a"], 1.5);
    assert_eq!(maps.lookup.0["k"], ["v"]);
    assert_eq!(maps.anything, json!({"nested": [1, "two"]}));
    assert!(refused::<MapsFixedKeys>(json!({"low": 1})).contains("missing field `high`"));
    // Named fields and every other field kept.
    let open: Open = round_trip(json!({"id": "x", "extra": 1, "more": {"a": true}}));
    assert_eq!(open.id, "x");
    assert_eq!(open.extra["more"], json!({"a": true}));
}

#[test]
fn recursive_types_are_boxed_and_decode() {
    use rules::recursive::types::*;
    let tree: Tree = round_trip(json!({
        "value": 1,
        "children": [{"value": 2, "children": []}],
        "parent": {"value": 0, "children": []}
    }));
    assert_eq!(tree.children[0].value, 2.0);
    let parent: Box<Tree> = tree.parent.expect("parent");
    assert_eq!(parent.value, 0.0);
    let json: Json = round_trip(json!({"a": [1.5, "two", null, {"b": false}]}));
    assert!(matches!(json, Json::JsonValueVariant4(_)));
}

#[test]
fn generics_are_instantiated_where_used() {
    use rules::generics::types::*;
    let listing: Listing = round_trip(json!({
        "items": {"items": [{"id": "i"}], "next": "cursor"},
        "names": {"items": ["n"]},
        "raw": {"items": [1, "x"]}
    }));
    assert_eq!(listing.items.items[0].id, "i");
    assert_eq!(listing.names.items, ["n"]);
    assert_eq!(listing.raw.items, [json!(1), json!("x")]);
    let uses: Uses = round_trip(json!({"pair": {"first": "a", "second": 2}}));
    assert_eq!(uses.pair.first, "a");
}

#[test]
fn declared_constants_are_rust_constants() {
    use rules::consts::types::*;
    assert_eq!(MAX_STATUS_TEXT_LENGTH, 320_u32);
    assert_eq!((grid::WIDTH, grid::HEIGHT), (64_u32, 40_u32));
    assert_eq!(GATEWAY, "agent-gateway");
    assert_eq!(OFFSET, -3_i64);
    assert_eq!(RATIO, 0.25_f64);
    const { assert!(ENABLED) };
}

#[test]
fn typescript_enums_keep_member_names() {
    use rules::enums::types::*;
    let m: Move = round_trip(json!({"direction": "DOWN", "level": 2}));
    assert_eq!(m.direction, Direction::Down);
    assert_eq!(*m.level, 2);
    assert!(refused::<Move>(json!({"direction": "Down", "level": 1})).contains("unknown variant"));
    assert!(
        refused::<Move>(json!({"direction": "UP", "level": 3}))
            .contains(" 3: not one of its values")
    );
}

#[test]
fn unsupported_members_become_json_values() {
    use rules::unsupported_members::types::*;
    let mixed: Mixed = round_trip(json!({
        "name": "n", "onChange": "opaque", "keys": "name", "mapped": {"a": 1}, "imported": [1]
    }));
    assert_eq!(mixed.on_change, json!("opaque"));
    assert_eq!(mixed.imported, json!([1]));
}
#[test]
fn built_in_generics_and_array_bases() {
    use rules::builtins::types::*;
    // `interface Items extends Array<Item> {}` is a named Vec.
    let items: Items =
        round_trip(json!([{"id": "a", "note": null}, {"id": "b", "label": "B", "note": "n"}]));
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].label.as_deref(), Some("B"));
    let tree: Tree =
        round_trip(json!({"name": "root", "children": [{"name": "leaf", "children": []}]}));
    assert_eq!(tree.children[0].name, "leaf");
    let tagged: Tagged = round_trip(json!(["x"]));
    assert_eq!(tagged.0, ["x"]);
    // `Record<keyof Item, boolean>`: one required field per key.
    let flags: Flags = round_trip(json!({"id": true, "label": false, "note": true}));
    assert!(flags.id && flags.note);
    assert!(refused::<Flags>(json!({"id": true})).contains("missing field"));
    // `Partial`: every field optional, `note` keeps its null apart from absence.
    let draft: Draft = round_trip(json!({"note": null}));
    assert_eq!((draft.id, draft.note), (None, Some(None)));
    // `Required`: `label` must be there.
    assert!(
        refused::<Complete>(json!({"id": "a", "note": null})).contains("missing field `label`")
    );
    let _: Complete = round_trip(json!({"id": "a", "label": "l", "note": null}));
    let _: Frozen = round_trip(json!({"id": "a", "note": "n"}));
    let names: Names = round_trip(json!(["a", "b"]));
    assert_eq!(names.len(), 2);
    // `Pick` and `Omit` keep the members they name, with their optionality.
    let summary: Summary = round_trip(json!({"id": "a"}));
    assert_eq!(summary.label, None);
    let bare: Bare = round_trip(json!({"id": "a"}));
    assert_eq!(bare.id, "a");
    // `NonNullable<Item['note']>` is a string.
    let note: Note = round_trip(json!("n"));
    assert_eq!(note.as_str(), "n");
    // `Exclude` / `Extract` on literal unions.
    assert_eq!(round_trip::<Loud>(json!("warn")), Loud::Warn);
    assert!(refused::<Loud>(json!("debug")).contains("unknown variant"));
    assert_eq!(round_trip::<Quiet>(json!("info")), Quiet::Info);
    assert!(refused::<Quiet>(json!("trace")).contains("unknown variant"));
}

#[test]
fn typeof_and_keyof_on_declared_names() {
    use rules::type_queries::types::*;
    // `code: typeof PARSE_ERROR` is exactly -32700.
    let error: ParseError = round_trip(json!({"code": -32700, "message": "bad"}));
    assert_eq!(error.message, "bad");
    assert!(
        refused::<ParseError>(json!({"code": -32000, "message": "x"})).contains("invalid value")
    );
    // `(typeof KINDS)[keyof typeof KINDS]` and `keyof typeof KINDS`.
    assert_eq!(round_trip::<Kind>(json!("square")), Kind::Square);
    assert_eq!(round_trip::<KindName>(json!("circle")), KindName::Circle);
    // `keyof Point` is the union of its member names.
    assert_eq!(round_trip::<PointKey>(json!("label")), PointKey::Label);
    assert!(refused::<PointKey>(json!("z")).contains("unknown variant"));
    let coordinate: Coordinate = round_trip(json!(1.5));
    assert_eq!(coordinate.0, 1.5);
    let uses: Uses =
        round_trip(json!({"key": "x", "kind": "circle", "unit": "px", "max": 10, "all": "a"}));
    assert_eq!(uses.kind, Kind::Circle);
    assert!(
        refused::<Uses>(json!({"key": "x", "kind": "circle", "unit": "em", "max": 10, "all": 1}))
            .contains("unknown variant")
    );
    assert_eq!(limits::MAX, 10_u32);
    assert_eq!(limits::UNIT, "px");
}

#[test]
fn intersections_narrow_as_typescript_does() {
    use rules::narrowing::types::*;
    // `number & typeof SOME_CODE` is the literal.
    let specific: Specific = round_trip(json!({"code": -32042, "message": "m"}));
    assert_eq!(specific.message, "m");
    assert!(refused::<Specific>(json!({"code": 1, "message": "m"})).contains("invalid value"));
    let base: Base = round_trip(json!({"code": 1, "message": "m"}));
    assert_eq!(base.code, 1.0);
    // Two literal unions meet in the values both allow.
    let _: Modes = round_trip(json!({"mode": "b"}));
    assert!(refused::<Modes>(json!({"mode": "a"})).contains("unknown variant"));
    // Two object types merge.
    let nested: Nested = round_trip(json!({"meta": {"a": "x", "b": 2}}));
    assert_eq!((nested.meta.a.as_str(), nested.meta.b), ("x", 2.0));
    // A branded string is a string.
    let holder: Holder =
        round_trip(json!({"brand": "id-1", "specific": {"code": -32042, "message": "m"}}));
    assert_eq!(holder.brand.as_str(), "id-1");
    // `b?: never` has no field.
    let only: OnlyA = round_trip(json!({"a": "x"}));
    assert_eq!(only.a, "x");
}

#[test]
fn declarations_without_json_form_are_left_out_alone() {
    use rules::left_out::types::*;
    let uses: Uses = round_trip(json!({"ok": "y", "callback": "opaque", "upper": {"x": "X"}}));
    assert_eq!(uses.callback, json!("opaque"));
    assert_eq!(uses.upper, Some(json!({"x": "X"})));
    let point: Point = round_trip(json!({"x": 1}));
    assert_eq!(point.x, 1.0);
}
