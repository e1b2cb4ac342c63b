//! Published declaration files from npm (`fixtures/contracts/npm/`, one over 5,000 lines) go
//! through the contracts generator; the output is a snapshot compiled into this crate
//! (`snapshots/npm/`), and some of it decodes real-looking JSON. Refresh on purpose with
//! `UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test npm_contracts`.

use std::path::Path;

use mcp_bindgen_codegen::{Generator, ServerConfig};
use serde_json::json;

const COMMAND: &str = "UPDATE_EXPECT=1 cargo test -p mcp-bindgen-tests --test npm_contracts";

/// One published file.
struct Published {
    module: &'static str,
    file: &'static str,
    package: &'static str,
    /// Lines of the file as published.
    lines: usize,
    /// Overrides (path, type) for what has no JSON form.
    overrides: &'static [(&'static str, &'static str)],
}

const FILES: &[Published] = &[
    Published {
        module: "geojson",
        file: "geojson.d.ts",
        package: "@types/geojson@7946.0.16",
        lines: 202,
        overrides: &[],
    },
    Published {
        module: "har_format",
        file: "har-format.d.ts",
        package: "@types/har-format@1.2.16",
        lines: 938,
        overrides: &[],
    },
    Published {
        module: "webhooks_types",
        file: "webhooks-types.d.ts",
        package: "@octokit/webhooks-types@7.6.1",
        lines: 8625,
        // `WebhookEventName = keyof EventPayloadMap` is the enum of the map's keys.
        overrides: &[],
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn published_declarations_generate_and_match_their_snapshots() {
    let generator = Generator::new().with_base(root());
    let mut biggest = 0;
    for Published {
        module,
        file,
        package,
        lines,
        overrides,
    } in FILES
    {
        let path = format!("fixtures/contracts/npm/{file}");
        let text = std::fs::read_to_string(root().join(&path)).expect("fixture");
        // The published file, after the license comment we put on top.
        let published = text
            .split_once(" */\n")
            .map_or(text.as_str(), |(_, rest)| rest);
        assert_eq!(published.lines().count(), *lines, "{package}: {path}");
        biggest = biggest.max(*lines);
        let mut config = ServerConfig::contracts_only(*module).with_contract(&path);
        for (at, ty) in *overrides {
            config = config.with_override(*at, *ty);
        }
        let generated = generator
            .generate(&config)
            .unwrap_or_else(|e| panic!("{package}: {e}"));
        assert!(generated.types > 0, "{package}");
        let snapshot = root().join(format!("snapshots/npm/{module}.rs"));
        expect_test::expect_file![snapshot].assert_eq(&generated.to_module_file(COMMAND));
    }
    assert!(biggest > 5000, "one of the files is over 5,000 lines");
}

#[test]
fn geojson_decodes_a_feature_collection() {
    use mcp_bindgen_tests::npm::geojson::types::*;
    let collection: GeoJson = serde_json::from_value(json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [102.0, 0.5]},
            "properties": {"prop0": "value0"}
        }]
    }))
    .expect("decodes");
    let again = serde_json::to_value(&collection).expect("encodes");
    assert_eq!(
        again["features"][0]["geometry"]["coordinates"],
        json!([102.0, 0.5])
    );
    assert_eq!(again["type"], json!("FeatureCollection"));
}

#[test]
fn har_decodes_a_log() {
    use mcp_bindgen_tests::npm::har_format::types::*;
    let har: Har = serde_json::from_value(json!({"log": {
        "version": "1.2",
        "creator": {"name": "mcp-bindgen", "version": "0.1"},
        "entries": []
    }}))
    .expect("decodes");
    assert_eq!(har.log.version, "1.2");
    assert_eq!(har.log.creator.name, "mcp-bindgen");
}

#[test]
fn webhooks_decode_a_ping() {
    use mcp_bindgen_tests::npm::webhooks_types::types::*;
    let event = json!({
        "zen": "Keep it logically awesome.",
        "hook_id": 1,
        "hook": {
            "type": "App", "id": 1, "name": "web", "active": true, "events": ["*"],
            "config": {"content_type": "json", "insecure_ssl": "0", "url": "https://example.com"},
            "updated_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z",
            "url": "https://api.github.com/app/hook", "ping_url": "https://api.github.com/app/hook/pings",
            "deliveries_url": "https://api.github.com/app/hook/deliveries",
            "app_id": 2,
            "last_response": {"code": null, "status": "unused", "message": null}
        }
    });
    let ping: PingEvent = serde_json::from_value(event.clone()).expect("decodes");
    assert_eq!(ping.zen, "Keep it logically awesome.");
    // `events: WebhookEvents` is a list of event names or `["*"]`.
    assert_eq!(
        serde_json::to_value(&ping.hook.events).expect("encodes"),
        json!(["*"])
    );
    // `WebhookEventName = keyof EventPayloadMap`: the map's keys, generated without an override.
    let name: WebhookEventName = serde_json::from_value(json!("ping")).expect("an event name");
    assert_eq!(name, WebhookEventName::Ping);
    assert!(serde_json::from_value::<WebhookEventName>(json!("pong")).is_err());
    let mut wrong = event;
    wrong["hook"]["config"]["insecure_ssl"] = json!("2");
    assert!(
        serde_json::from_value::<PingEvent>(wrong).is_err(),
        "insecure_ssl is \"0\" or \"1\""
    );
}
