// `quickstart` is this crate's name: in yours, write your crate's (`my_app::everything`, with
// any `-` as `_`).
use quickstart::everything::Client;
use quickstart::everything::types::{GetStructuredContentArgs, GetStructuredContentArgsLocation};

fn main() -> Result<(), mcp_bindgen::Error> {
    let mut server = std::process::Command::new("npx");
    server.args(["-y", "@modelcontextprotocol/server-everything", "stdio"]);
    // The client does its I/O on a thread of its own: any executor can drive it.
    pollster::block_on(async {
        let client = Client::new(mcp_bindgen::StdioClient::spawn(server).await?);
        // The tool's outputSchema made its result a struct: fields, not JSON to pick apart.
        let weather = client
            .get_structured_content(&GetStructuredContentArgs {
                location: GetStructuredContentArgsLocation::Chicago,
            })
            .await?;
        println!(
            "Chicago: {}, {} degrees, {}% humidity",
            weather.conditions, weather.temperature, weather.humidity
        );
        Ok(())
    })
}
