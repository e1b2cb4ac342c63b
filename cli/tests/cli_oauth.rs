//! `mcp-bindgen capture --url URL --oauth` against a server behind OAuth (a Python realm on
//! 127.0.0.1): the first run opens the browser (`$BROWSER`, here a script that approves as a
//! person would) and takes the redirect on its loopback listener; the second run signs in from
//! the stored tokens and opens nothing.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

struct Realm {
    child: Child,
    url: String,
}

impl Drop for Realm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn realm(log: &Path) -> Realm {
    let mut child = Command::new("python3")
        .arg(format!("{FIXTURES}/oauth_realm.py"))
        .env("REALM_LOG", log)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("prints its URL");
    Realm {
        child,
        url: url.trim().to_owned(),
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn capture_signs_in_with_the_browser_once_then_from_stored_tokens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (realm_log, browser_log) = (dir.path().join("realm.log"), dir.path().join("browser.log"));
    let tokens = dir.path().join("tokens");
    let realm = realm(&realm_log);
    let capture = |output: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
            .args(["capture", "--url", &realm.url, "--oauth", "--token-dir"])
            .arg(&tokens)
            .arg("-o")
            .arg(dir.path().join(output))
            .env("BROWSER", format!("python3 {FIXTURES}/browser.py"))
            .env("BROWSER_LOG", &browser_log)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(dir.path().join(output)).expect("capture written");
        let capture: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(capture["tools"][0]["name"], "whoami", "{capture}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    let stderr = capture("first.tools.json");
    assert!(
        stderr.contains("/authorize?"),
        "the URL is printed: {stderr}"
    );
    assert_eq!(lines(&browser_log).len(), 1, "one browser start");
    let authorizations = lines(&realm_log);
    assert_eq!(authorizations.len(), 1);
    assert!(
        authorizations[0].contains(&realm.url),
        "resource: {authorizations:?}"
    );
    #[cfg(unix)]
    for entry in std::fs::read_dir(&tokens).expect("token dir") {
        use std::os::unix::fs::PermissionsExt;
        let mode = entry
            .expect("entry")
            .metadata()
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "token file readable by others: {mode:o}");
    }

    capture("second.tools.json");
    assert_eq!(
        lines(&browser_log).len(),
        1,
        "the second run opened the browser"
    );
    assert_eq!(
        lines(&realm_log).len(),
        1,
        "the second run authorized again"
    );
}

/// A client secret named by a variable that is not set is refused before anything is sent,
/// naming the flag and the variable.
#[test]
fn an_unset_client_secret_variable_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
        .args([
            "capture",
            "--url",
            "https://mcp.example/mcp",
            "--oauth",
            "--client-id",
            "my-client",
            "--client-secret-env",
            "MCP_BINDGEN_TEST_UNSET_SECRET",
            "-o",
            "never.tools.json",
        ])
        .env_remove("MCP_BINDGEN_TEST_UNSET_SECRET")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--client-secret-env MCP_BINDGEN_TEST_UNSET_SECRET")
            && stderr.contains("is not set"),
        "{stderr}"
    );
    assert!(!Path::new("never.tools.json").exists());
}

/// Without a person: `--client-credentials` with the client's secret from a variable, and
/// `--workload-token FILE` with the platform's JWT; neither opens a browser, and neither
/// secret is in what the command prints.
#[test]
fn capture_signs_in_as_a_machine_and_as_a_workload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let realm_log = dir.path().join("realm.log");
    let realm = realm(&realm_log);
    let run = |flags: &[&str], output: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
            .args(["capture", "--url", &realm.url, "--oauth", "--token-dir"])
            .arg(dir.path().join(output).with_extension("tokens"))
            .args(flags)
            .arg("-o")
            .arg(dir.path().join(output))
            .env("CLI_SECRET", "cli-secret")
            .env("BROWSER", "false")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{flags:?}: {stderr}");
        let text = std::fs::read_to_string(dir.path().join(output)).expect("capture written");
        assert!(text.contains("whoami"), "{text}");
        assert!(
            !stderr.contains("cli-secret") && !stderr.contains("workload-ci"),
            "{stderr}"
        );
    };
    run(
        &[
            "--client-id",
            "cli-client",
            "--client-secret-env",
            "CLI_SECRET",
            "--client-credentials",
        ],
        "machine.tools.json",
    );
    let token = dir.path().join("ci-token");
    std::fs::write(&token, "workload-ci-job-42\n").expect("token file");
    run(
        &["--workload-token", token.to_str().expect("path")],
        "workload.tools.json",
    );
    let grants: Vec<serde_json::Value> = lines(&realm_log)
        .iter()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(grants.len(), 2, "{grants:?}");
    assert_eq!(grants[0]["grant"], "client_credentials");
    assert_eq!(
        grants[1]["grant"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(grants[1]["assertion"], "workload-ci-job-42");

    assert_eq!(
        grants[0]["dpop"], false,
        "DPoP only where offered: {grants:?}"
    );

    // --dpop: the token request carries a proof, and the Bearer token this realm issues is
    // refused with what happened.
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
        .args([
            "capture",
            "--url",
            &realm.url,
            "--oauth",
            "--dpop",
            "--token-dir",
        ])
        .arg(dir.path().join("dpop.tokens"))
        .args(["--workload-token", token.to_str().expect("path")])
        .arg("-o")
        .arg(dir.path().join("dpop.tools.json"))
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DPoP is required"), "{stderr}");
    assert!(!stderr.contains("workload-ci"), "{stderr}");
    let grants = lines(&realm_log);
    let last: serde_json::Value =
        serde_json::from_str(grants.last().expect("logged")).expect("JSON");
    assert_eq!(last["dpop"], true, "{last}");

    // --client-credentials with neither a secret nor a key: refused before anything is sent.
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-bindgen"))
        .args([
            "capture",
            "--url",
            &realm.url,
            "--oauth",
            "--client-id",
            "cli-client",
        ])
        .arg("--client-credentials")
        .arg("-o")
        .arg(dir.path().join("never.tools.json"))
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--client-secret-env"), "{stderr}");
    assert_eq!(lines(&realm_log).len(), 3, "nothing was sent");
}
