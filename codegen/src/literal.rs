//! String literals for generated code: JSON kept as the server sent it, in raw strings short
//! enough to read.

use proc_macro2::TokenStream;
use quote::quote;

/// How many characters of JSON one raw string holds at most: with the indentation the
/// deepest literal gets, and its `r#"` and `"#,`, a line stays within 100 columns.
pub(crate) const PIECE_WIDTH: usize = 72;

/// A raw string literal that holds `s` as is.
pub(crate) fn raw_string(s: &str) -> TokenStream {
    let mut hashes = 1;
    while s.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{s}\"{h}")
        .parse()
        .unwrap_or_else(|_| quote!(#s))
}

/// The JSON text `json` as an expression of type `&'static str`: one raw string when it is
/// short, else `concat!` of raw strings of at most [`PIECE_WIDTH`] characters, one per line.
///
/// The pieces end after a `,`, `{` or `[` outside a string, or after a space inside one, where
/// they can, so that members and words stay whole; the text is the same, byte for byte.
pub(crate) fn json_literal(json: &str) -> TokenStream {
    let pieces = json_pieces(json, PIECE_WIDTH);
    if pieces.len() <= 1 {
        return raw_string(json);
    }
    let pieces = pieces.into_iter().map(raw_string);
    quote!(concat!(#(#pieces),*))
}

/// `json` cut into pieces of at most `width` characters (see [`json_literal`]).
pub(crate) fn json_pieces(json: &str, width: usize) -> Vec<&str> {
    let width = width.max(1);
    let mut pieces = Vec::new();
    // The current piece's start, the characters in it so far, and the byte offset after its
    // last good break.
    let (mut start, mut count, mut good) = (0, 0, None);
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in json.char_indices() {
        if count == width {
            // The piece is full: end it at its last good break, else here.
            let cut = good.unwrap_or(i);
            pieces.push(&json[start..cut]);
            count = json[cut..i].chars().count();
            start = cut;
            good = None;
        }
        count += 1;
        let end = i + c.len_utf8();
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if c == ' ' {
                good = Some(end);
            }
        } else {
            match c {
                '"' => in_string = true,
                ',' | '{' | '[' => good = Some(end),
                _ => {}
            }
        }
    }
    if start < json.len() {
        pieces.push(&json[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_to_the_text_and_break_between_members_and_words() {
        let json =
            r#"{"a":{"description":"one two three four five six","type":"string"},"b":[1,2,3]}"#;
        let pieces = json_pieces(json, 24);
        assert_eq!(pieces.concat(), json);
        assert!(pieces.iter().all(|p| p.chars().count() <= 24), "{pieces:?}");
        assert_eq!(
            pieces,
            [
                r#"{"a":{"#,
                r#""description":"one two "#,
                r#"three four five six","#,
                r#""type":"string"},"b":[1,"#,
                r#"2,3]}"#,
            ]
        );
    }

    #[test]
    fn a_text_without_breaks_is_cut_at_the_width_on_character_boundaries() {
        let json = r#""ééééééééééééé\"ééé""#;
        let pieces = json_pieces(json, 5);
        assert_eq!(pieces.concat(), json);
        assert!(pieces.iter().all(|p| p.chars().count() <= 5), "{pieces:?}");
        // Quotes and escapes inside a string are not breaks: `,` in a string is text.
        let pieces = json_pieces(r#"{"k":"a,b,c,d,e,f"}"#, 8);
        assert_eq!(pieces, [r#"{"#, r#""k":"a,b"#, r#",c,d,e,f"#, r#""}"#]);
    }

    #[test]
    fn short_text_is_one_raw_string_and_long_text_a_concat() {
        assert_eq!(json_literal(r#"{"a":1}"#).to_string(), r##"r#"{"a":1}"#"##);
        let long = format!(r#"{{"description":"{}"}}"#, "word ".repeat(40));
        let literal = json_literal(&long).to_string();
        assert!(literal.starts_with("concat !"), "{literal}");
        // A piece holding `"#` gets more hashes.
        assert_eq!(raw_string(r##"a"#b"##).to_string(), r###"r##"a"#b"##"###);
    }
}
