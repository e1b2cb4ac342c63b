use quickstart::everything::{Client, types::GetSumArgs};

fn main() -> Result<(), mcp_bindgen::Error> {
    let mut server = std::process::Command::new("npx");
    server.args(["-y", "@modelcontextprotocol/server-everything", "stdio"]);
    // The client does its I/O on a thread of its own: any executor can drive it.
    pollster::block_on(async {
        let client = Client::new(mcp_bindgen::StdioClient::spawn(server).await?);
        let sum = client.get_sum(&GetSumArgs { a: 2.0, b: 3.0 }).await?;
        println!("2 + 3 = {sum}");
        Ok(())
    })
}
