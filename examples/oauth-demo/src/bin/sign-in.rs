//! `sign-in [--url URL] [--tokens DIR] [--dice NdS] [--wait SECS]`: signs in to the dice tavern
//! through the browser (the first time; later runs use the tokens kept in DIR, default
//! `$XDG_CONFIG_HOME/mcp-bindgen-oauth-demo` else `~/.config/mcp-bindgen-oauth-demo`, refreshed
//! when they expire), rolls the dice, and prints what came up. The person has SECS (default 300) to
//! answer the sign-in page.

use std::process::ExitCode;

use mcp_bindgen::oauth::{BrowserSignIn, FileTokenStore, OAuth};
use mcp_bindgen::{CallOptions, HttpClient};
use oauth_demo::Rolled;

fn main() -> ExitCode {
    let mut url = "http://127.0.0.1:7300/mcp".to_owned();
    // The user's own configuration folder, as `mcp-bindgen capture --oauth` keeps its tokens
    // (not the shared temporary folder, where another user could have made the folder first).
    let mut tokens = std::env::var_os("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".config"))
        })
        .map(|config| config.join("mcp-bindgen-oauth-demo"));
    let mut dice = "2d6".to_owned();
    let mut wait = std::time::Duration::from_secs(300);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let Some(value) = args.next() else {
            return usage();
        };
        match arg.as_str() {
            "--url" => url = value,
            "--tokens" => tokens = Some(value.into()),
            "--dice" => dice = value,
            "--wait" => match value.parse() {
                Ok(secs) => wait = std::time::Duration::from_secs(secs),
                Err(_) => return usage(),
            },
            _ => return usage(),
        }
    }
    let Some(tokens) = tokens else {
        eprintln!("error: neither XDG_CONFIG_HOME nor HOME is set: give --tokens DIR");
        return ExitCode::from(2);
    };
    match pollster::block_on(roll(&url, tokens, &dice, wait)) {
        Ok(rolled) => {
            println!("{}: {:?} = {}", rolled.dice, rolled.rolls, rolled.total);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn roll(
    url: &str,
    tokens: std::path::PathBuf,
    dice: &str,
    wait: std::time::Duration,
) -> Result<Rolled, Box<dyn std::error::Error>> {
    let oauth = OAuth::new()
        .client_name("mcp-bindgen OAuth demo")
        // Owner-only files, one per server and authorization server: the next run needs no
        // browser.
        .token_store(FileTokenStore::new(tokens))
        // The system browser (or $BROWSER) opens the sign-in page; the redirect comes back to
        // a listener on 127.0.0.1.
        .browser_sign_in(BrowserSignIn::new()?.timeout(wait));
    let client = HttpClient::builder(url).oauth(oauth).connect().await?;
    let mut arguments = serde_json::Map::new();
    arguments.insert("dice".to_owned(), dice.into());
    let result = client
        .call_tool_with("roll", arguments, &CallOptions::default())
        .await?;
    if result.is_error == Some(true) {
        let text: Vec<String> = result.content.iter().map(|c| format!("{c:?}")).collect();
        return Err(text.join(" ").into());
    }
    let structured = result
        .structured_content
        .ok_or("the roll has no structured result")?;
    Ok(serde_json::from_value(structured)?)
}

fn usage() -> ExitCode {
    eprintln!("usage: sign-in [--url URL] [--tokens DIR] [--dice NdS] [--wait SECS]");
    ExitCode::from(2)
}
