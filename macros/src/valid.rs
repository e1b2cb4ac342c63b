//! Checks with spanned errors, before any tokens are written.

use crate::ast::Input;

pub(crate) fn check(input: &Input<'_>) -> syn::Result<()> {
    if let Some(param) = input.generics.params.first() {
        return Err(syn::Error::new_spanned(
            param,
            format!(
                "{} does not take generic parameters: a {} has one fixed input schema",
                input.derive.name(),
                input.derive.noun()
            ),
        ));
    }
    if let Some(name) = &input.attrs.name {
        let value = name.value();
        // SEP-986: 1 to 128 characters of A-Z a-z 0-9 _ - .
        if value.is_empty() || value.chars().count() > 128 {
            return Err(syn::Error::new(
                name.span(),
                format!("a {} name has 1 to 128 characters", input.derive.noun()),
            ));
        }
        if let Some(bad) = value
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "{} names use only A-Z, a-z, 0-9, `_`, `-` and `.` (MCP spec); found {bad:?}",
                    input.derive.noun()
                ),
            ));
        }
    }
    if let (Some(read_only), Some(destructive)) = (input.attrs.read_only, input.attrs.destructive)
        && read_only.value
        && destructive.value
    {
        return Err(syn::Error::new(
            destructive.span,
            "a read_only tool cannot be destructive: clients read `destructiveHint` only for tools that write",
        ));
    }
    let _ = input.span();
    Ok(())
}
