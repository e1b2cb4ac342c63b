//! oxc's AST → [`ir`](super::ir). The only file that names oxc types: an oxc upgrade (every
//! 0.x minor release breaks its AST) stays here.

use std::collections::HashMap;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BindingPattern, Declaration, Expression, ObjectPropertyKind, PropertyKey, Statement,
    TSEnumMemberName, TSLiteral, TSNamespaceDeclarationBody, TSSignature, TSTupleElement, TSType,
    TSTypeName, TSTypeOperatorOperator, UnaryOperator,
};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

use super::ir::{ConstValue, Decl, DeclKind, EnumMember, Lit, Loc, Member, Obj, Param, Ty};

/// Declarations of one file, and what was left out of them.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub decls: Vec<Decl>,
    /// Statements that describe no JSON data (functions, classes, namespaces): where, what.
    pub skipped: Vec<(Loc, String)>,
}

/// A parse failure: where (byte offset) and oxc's message.
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub offset: u32,
    pub message: String,
}

/// Parses the declarations of file number `file`.
pub(crate) fn parse_file(file: usize, text: &str) -> Result<Parsed, SyntaxError> {
    let allocator = Allocator::default();
    let ret = Parser::new(&allocator, text, SourceType::d_ts()).parse();
    if let Some(error) = ret.diagnostics.errors().next() {
        return Err(SyntaxError {
            offset: error.labels.first().map_or(0, |l| l.offset()),
            message: error.message.to_string(),
        });
    }
    if ret.panicked {
        return Err(SyntaxError {
            offset: 0,
            message: "the parser gave up on this file".into(),
        });
    }
    let mut docs: HashMap<u32, String> = HashMap::new();
    for comment in &ret.program.comments {
        if comment.is_jsdoc() {
            let span = comment.span;
            let raw = &text[span.start as usize..span.end as usize];
            if let Some(doc) = clean_jsdoc(raw) {
                docs.insert(comment.attached_to, doc);
            }
        }
    }
    let mut walker = Walker {
        file,
        docs,
        out: Parsed::default(),
        depth: std::cell::Cell::new(0),
        scope: Vec::new(),
        scopes: Vec::new(),
        text: text.to_owned(),
        unseparated: std::cell::Cell::new(None),
    };
    for statement in &ret.program.body {
        walker.statement(statement);
    }
    if let Some(offset) = walker.unseparated.get() {
        return Err(unseparated(offset));
    }
    walker.qualify();
    Ok(walker.out)
}

/// Parses a type written on its own (a manifest override or result type).
pub(crate) fn parse_type(file: usize, text: &str) -> Result<Ty, SyntaxError> {
    let prefix = "type __McpBindgenSetting = ";
    let source = format!("{prefix}{text};");
    let allocator = Allocator::default();
    let ret = Parser::new(&allocator, &source, SourceType::d_ts()).parse();
    let shift = |offset: u32| offset.saturating_sub(prefix.len() as u32);
    if let Some(error) = ret.diagnostics.errors().next() {
        return Err(SyntaxError {
            offset: shift(error.labels.first().map_or(0, |l| l.offset())),
            message: error.message.to_string(),
        });
    }
    let walker = Walker {
        file,
        docs: HashMap::new(),
        out: Parsed::default(),
        depth: std::cell::Cell::new(0),
        scope: Vec::new(),
        scopes: Vec::new(),
        text: source.clone(),
        unseparated: std::cell::Cell::new(None),
    };
    match ret.program.body.first() {
        Some(Statement::TSTypeAliasDeclaration(alias)) if ret.program.body.len() == 1 => {
            let mut ty = walker.ty(&alias.type_annotation);
            if let Some(offset) = walker.unseparated.get() {
                return Err(unseparated(shift(offset)));
            }
            shift_locs(&mut ty, prefix.len() as u32);
            Ok(ty)
        }
        _ => Err(SyntaxError {
            offset: 0,
            message: "expected one TypeScript type".into(),
        }),
    }
}

fn shift_locs(ty: &mut Ty, by: u32) {
    match ty {
        Ty::Ref { at, args, .. } => {
            at.offset = at.offset.saturating_sub(by);
            args.iter_mut().for_each(|a| shift_locs(a, by));
        }
        Ty::Unsupported { at, .. } => at.offset = at.offset.saturating_sub(by),
        Ty::Indexed { object, index, at } => {
            at.offset = at.offset.saturating_sub(by);
            shift_locs(object, by);
            shift_locs(index, by);
        }
        Ty::KeyOf { object, at } => {
            at.offset = at.offset.saturating_sub(by);
            shift_locs(object, by);
        }
        Ty::TypeOf { at, .. } => at.offset = at.offset.saturating_sub(by),
        Ty::Conflict { at, other, .. } => {
            at.offset = at.offset.saturating_sub(by);
            other.offset = other.offset.saturating_sub(by);
        }
        Ty::Array(inner) => shift_locs(inner, by),
        Ty::Tuple(items) | Ty::Union(items) | Ty::Intersection(items) => {
            items.iter_mut().for_each(|a| shift_locs(a, by));
        }
        Ty::Object(obj) => {
            for m in &mut obj.members {
                m.at.offset = m.at.offset.saturating_sub(by);
                shift_locs(&mut m.ty, by);
            }
            if let Some(index) = &mut obj.index {
                shift_locs(index, by);
            }
            if let Some(at) = &mut obj.index_at {
                at.offset = at.offset.saturating_sub(by);
            }
        }
        _ => {}
    }
}

/// `/** text */` → `text`, without the leading `*` of each line.
fn clean_jsdoc(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("/**")?.strip_suffix("*/")?;
    let lines: Vec<String> = inner
        .lines()
        .map(|line| {
            let t = line.trim();
            let t = t.strip_prefix('*').unwrap_or(t);
            // Tabs (in code examples) become spaces, as rustdoc wants them.
            t.strip_prefix(' ')
                .unwrap_or(t)
                .trim_end()
                .replace('\t', "    ")
        })
        .collect();
    let start = lines.iter().position(|l| !l.is_empty())?;
    let end = lines.iter().rposition(|l| !l.is_empty())?;
    // A line right after a list item that is not one itself (nor indented) starts a paragraph:
    // Markdown would run it into the item (rustdoc's lazy continuation).
    let mut out: Vec<&str> = Vec::new();
    for line in &lines[start..=end] {
        if let Some(previous) = out.last()
            && is_list_item(previous)
            && !line.is_empty()
            && !is_list_item(line)
            && !line.starts_with(' ')
        {
            out.push("");
        }
        out.push(line);
    }
    Some(out.join("\n"))
}

/// `- item`, `+ item`, `1. item`.
fn is_list_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    line.starts_with("- ")
        || line.starts_with("+ ")
        || (digits > 0 && line[digits..].starts_with(". "))
}

/// Types nested deeper than this become unsupported (bounds recursion here and later).
const MAX_DEPTH: usize = 24;

/// The error for two members of an interface or object type with nothing between them:
/// oxc's parser reads `{ a: string b: number }` as two members, `tsc` refuses it (TS1005).
fn unseparated(offset: u32) -> SyntaxError {
    SyntaxError {
        offset,
        message: "`;` expected: members of an interface or object type are separated by `;`, \
                  `,` or a line break"
            .into(),
    }
}

struct Walker {
    file: usize,
    docs: HashMap<u32, String>,
    out: Parsed,
    depth: std::cell::Cell<usize>,
    /// The namespaces around the statement being read, outermost first.
    scope: Vec<String>,
    /// Index of each declaration in `out.decls` → the namespace it was declared in.
    scopes: Vec<(usize, Vec<String>)>,
    /// The text parsed, to see what lies between members.
    text: String,
    /// The first member that follows another with no separator between them.
    unseparated: std::cell::Cell<Option<u32>>,
}

impl Walker {
    fn loc(&self, offset: u32) -> Loc {
        Loc {
            file: self.file,
            offset,
        }
    }

    fn doc(&self, start: u32) -> Option<String> {
        self.docs.get(&start).cloned()
    }

    fn skip(&mut self, offset: u32, what: &str) {
        let loc = self.loc(offset);
        self.out.skipped.push((loc, what.to_owned()));
    }

    fn statement(&mut self, statement: &Statement<'_>) {
        let start = statement.span().start;
        match statement {
            Statement::ExportDeclaration(export) => self.declaration(&export.declaration, start),
            Statement::ExportDefaultDeclaration(_) => {
                self.skip(start, "an `export default` declaration")
            }
            Statement::VariableDeclaration(_)
            | Statement::FunctionDeclaration(_)
            | Statement::ClassDeclaration(_)
            | Statement::TSTypeAliasDeclaration(_)
            | Statement::TSInterfaceDeclaration(_)
            | Statement::TSEnumDeclaration(_)
            | Statement::TSExternalModuleDeclaration(_)
            | Statement::TSNamespaceDeclaration(_)
            | Statement::TSGlobalDeclaration(_)
            | Statement::TSImportEqualsDeclaration(_) => {
                if let Some(declaration) = statement.as_declaration() {
                    self.declaration(declaration, start);
                }
            }
            // Imports, re-exports and `export as namespace` name no new data; imported types
            // must be declared in one of the contract files.
            _ => {}
        }
    }

    /// `namespace N { .. }`: its declarations are read as `N.Name` (and `N.M.Name` for nested
    /// ones), as TypeScript names them from outside.
    fn namespace(&mut self, namespace: &oxc_ast::ast::TSNamespaceDeclaration<'_>) {
        self.scope.push(namespace.id.name.to_string());
        match &namespace.body {
            TSNamespaceDeclarationBody::TSModuleBlock(block) => {
                for statement in &block.body {
                    self.statement(statement);
                }
            }
            TSNamespaceDeclarationBody::TSNamespaceDeclaration(inner) => self.namespace(inner),
        }
        self.scope.pop();
    }

    /// Qualifies the names declared in namespaces, and the references inside a namespace to
    /// its own declarations (`Document` in `namespace OpenAPIV3` is `OpenAPIV3.Document`).
    fn qualify(&mut self) {
        let scopes = std::mem::take(&mut self.scopes);
        for (i, scope) in &scopes {
            let decl = &mut self.out.decls[*i];
            decl.name = format!("{}.{}", scope.join("."), decl.name);
        }
        let declared: std::collections::HashSet<String> =
            self.out.decls.iter().map(|d| d.name.clone()).collect();
        for (i, scope) in &scopes {
            let decl = &mut self.out.decls[*i];
            let params: Vec<String> = decl.params.iter().map(|p| p.name.clone()).collect();
            let resolve = |name: &mut String| {
                if params.contains(name) {
                    return;
                }
                for depth in (1..=scope.len()).rev() {
                    let qualified = format!("{}.{name}", scope[..depth].join("."));
                    if declared.contains(&qualified) {
                        *name = qualified;
                        return;
                    }
                }
            };
            match &mut decl.kind {
                DeclKind::Interface { extends, body } => {
                    extends.iter_mut().for_each(|t| rename_refs(t, &resolve));
                    for m in &mut body.members {
                        rename_refs(&mut m.ty, &resolve);
                    }
                    if let Some(index) = &mut body.index {
                        rename_refs(index, &resolve);
                    }
                }
                DeclKind::Alias(ty) => rename_refs(ty, &resolve),
                DeclKind::Const(_, Some(ty)) => rename_refs(ty, &resolve),
                DeclKind::Const(_, None) | DeclKind::Enum(_) => {}
            }
            for p in &mut decl.params {
                if let Some(default) = &mut p.default {
                    rename_refs(default, &resolve);
                }
            }
        }
    }

    fn declaration(&mut self, declaration: &Declaration<'_>, doc_at: u32) {
        let before = self.out.decls.len();
        self.declaration_inner(declaration, doc_at);
        if !self.scope.is_empty() {
            for i in before..self.out.decls.len() {
                self.scopes.push((i, self.scope.clone()));
            }
        }
    }

    fn declaration_inner(&mut self, declaration: &Declaration<'_>, doc_at: u32) {
        let doc = self.doc(doc_at);
        match declaration {
            Declaration::TSInterfaceDeclaration(interface) => {
                let extends = interface
                    .extends
                    .iter()
                    .map(|h| Ty::Ref {
                        name: type_name(&h.type_name),
                        args: h
                            .type_arguments
                            .as_ref()
                            .map(|a| a.params.iter().map(|t| self.ty(t)).collect())
                            .unwrap_or_default(),
                        at: self.loc(h.span.start),
                    })
                    .collect();
                let body = self.signatures(&interface.body.body);
                self.out.decls.push(Decl {
                    name: interface.id.name.to_string(),
                    at: self.loc(interface.id.span.start),
                    doc,
                    params: self.params(interface.type_parameters.as_deref()),
                    kind: DeclKind::Interface { extends, body },
                });
            }
            Declaration::TSTypeAliasDeclaration(alias) => {
                let ty = self.ty(&alias.type_annotation);
                self.out.decls.push(Decl {
                    name: alias.id.name.to_string(),
                    at: self.loc(alias.id.span.start),
                    doc,
                    params: self.params(alias.type_parameters.as_deref()),
                    kind: DeclKind::Alias(ty),
                });
            }
            Declaration::VariableDeclaration(variables) => {
                for (i, declarator) in variables.declarations.iter().enumerate() {
                    let BindingPattern::BindingIdentifier(id) = &declarator.id else {
                        self.skip(declarator.span.start, "a destructuring declaration");
                        continue;
                    };
                    let value = declarator.init.as_ref().and_then(const_expr).or_else(|| {
                        declarator
                            .type_annotation
                            .as_ref()
                            .and_then(|t| const_type(&t.type_annotation, &self.docs))
                    });
                    let annotation = declarator
                        .type_annotation
                        .as_ref()
                        .map(|t| self.ty(&t.type_annotation));
                    self.out.decls.push(Decl {
                        name: id.name.to_string(),
                        at: self.loc(id.span.start),
                        doc: if i == 0 {
                            doc.clone()
                        } else {
                            self.doc(declarator.span.start)
                        },
                        params: Vec::new(),
                        kind: DeclKind::Const(value, annotation),
                    });
                }
            }
            Declaration::TSEnumDeclaration(decl) => {
                let members =
                    decl.body
                        .members
                        .iter()
                        .map(|m| EnumMember {
                            name: match &m.id {
                                TSEnumMemberName::Identifier(id) => id.name.to_string(),
                                TSEnumMemberName::String(s)
                                | TSEnumMemberName::ComputedString(s) => s.value.to_string(),
                                TSEnumMemberName::ComputedTemplateString(_) => String::new(),
                            },
                            value: m.initializer.as_ref().and_then(|e| match const_expr(e) {
                                Some(ConstValue::Lit(lit)) => Some(lit),
                                _ => None,
                            }),
                        })
                        .collect();
                self.out.decls.push(Decl {
                    name: decl.id.name.to_string(),
                    at: self.loc(decl.id.span.start),
                    doc,
                    params: Vec::new(),
                    kind: DeclKind::Enum(members),
                });
            }
            // A namespace's functions are the usual companions of the interface of its name
            // (`namespace Position { function create(..) }`): left out without a word.
            Declaration::FunctionDeclaration(_) if !self.scope.is_empty() => {}
            Declaration::FunctionDeclaration(f) => {
                self.skip(f.span.start, "a function declaration (behaviour, not data)")
            }
            Declaration::ClassDeclaration(c) => self.skip(
                c.span.start,
                "a class declaration (declare its data as an interface to use it)",
            ),
            Declaration::TSNamespaceDeclaration(n) => self.namespace(n),
            Declaration::TSExternalModuleDeclaration(m) => {
                self.skip(m.span.start, "a `declare module` block (not read)")
            }
            Declaration::TSGlobalDeclaration(g) => {
                self.skip(g.span.start, "a `declare global` block (not read)")
            }
            Declaration::TSImportEqualsDeclaration(_) => {}
        }
    }

    fn params(&self, params: Option<&oxc_ast::ast::TSTypeParameterDeclaration<'_>>) -> Vec<Param> {
        params
            .map(|p| {
                p.params
                    .iter()
                    .map(|p| Param {
                        name: p.name.name.to_string(),
                        default: p.default.as_ref().map(|d| self.ty(d)),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Records the first member of `signatures` that follows the previous one with neither
    /// `;`, `,` nor a line break between them (oxc accepts it; `tsc` does not).
    fn check_separators(&self, signatures: &[TSSignature<'_>]) {
        if self.unseparated.get().is_some() {
            return;
        }
        for pair in signatures.windows(2) {
            let (end, start) = (pair[0].span().end as usize, pair[1].span().start as usize);
            let Some(between) = self.text.get(end.saturating_sub(1)..start) else {
                continue;
            };
            if !between.contains([';', ',', '\n', '\r']) {
                self.unseparated.set(Some(start as u32));
                return;
            }
        }
    }

    fn signatures(&self, signatures: &[TSSignature<'_>]) -> Obj {
        let mut obj = Obj::default();
        self.check_separators(signatures);
        for signature in signatures {
            match signature {
                TSSignature::TSPropertySignature(p) => {
                    let at = self.loc(p.span.start);
                    let Some(name) = property_name(&p.key) else {
                        obj.skipped.push((at, "a computed property key"));
                        continue;
                    };
                    let ty = match &p.type_annotation {
                        Some(t) => self.ty(&t.type_annotation),
                        None => Ty::Any,
                    };
                    obj.members.push(Member {
                        name,
                        optional: p.optional,
                        ty,
                        doc: self.doc(p.span.start),
                        at,
                        owner: None,
                    });
                }
                TSSignature::TSIndexSignature(index) => {
                    let key = &index.parameter.type_annotation.type_annotation;
                    let at = self.loc(index.span.start);
                    if matches!(key, TSType::TSStringKeyword(_)) {
                        obj.index = Some(Box::new(self.ty(&index.type_annotation.type_annotation)));
                        obj.index_at = Some(at);
                    } else {
                        obj.skipped
                            .push((at, "an index signature whose key is not `string`"));
                    }
                }
                TSSignature::TSMethodSignature(m) => {
                    obj.skipped.push((self.loc(m.span.start), "a method"))
                }
                TSSignature::TSCallSignatureDeclaration(c) => obj
                    .skipped
                    .push((self.loc(c.span.start), "a call signature")),
                TSSignature::TSConstructSignatureDeclaration(c) => obj
                    .skipped
                    .push((self.loc(c.span.start), "a construct signature")),
            }
        }
        obj
    }

    fn unsupported(&self, offset: u32, what: &str) -> Ty {
        Ty::Unsupported {
            what: what.to_owned(),
            at: self.loc(offset),
        }
    }

    fn ty(&self, ty: &TSType<'_>) -> Ty {
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            return self.unsupported(
                ty.span().start,
                &format!("a type nested deeper than {MAX_DEPTH} levels"),
            );
        }
        self.depth.set(depth + 1);
        let out = self.ty_inner(ty);
        self.depth.set(depth);
        out
    }

    fn ty_inner(&self, ty: &TSType<'_>) -> Ty {
        let start = ty.span().start;
        match ty {
            TSType::TSAnyKeyword(_) => Ty::Any,
            TSType::TSUnknownKeyword(_) => Ty::Unknown,
            TSType::TSNeverKeyword(_) => Ty::Never,
            TSType::TSUndefinedKeyword(_) | TSType::TSVoidKeyword(_) => Ty::Undefined,
            TSType::TSNullKeyword(_) => Ty::Null,
            TSType::TSStringKeyword(_) => Ty::String,
            TSType::TSNumberKeyword(_) => Ty::Number,
            TSType::TSBooleanKeyword(_) => Ty::Boolean,
            TSType::TSObjectKeyword(_) => Ty::ObjectKeyword,
            TSType::TSBigIntKeyword(_) => self.unsupported(start, "`bigint` (JSON has no bigint)"),
            TSType::TSSymbolKeyword(_) => self.unsupported(start, "`symbol` (not JSON data)"),
            TSType::TSIntrinsicKeyword(_) => self.unsupported(start, "an intrinsic type"),
            TSType::TSThisType(_) => self.unsupported(start, "the `this` type"),
            TSType::TSArrayType(a) => Ty::Array(Box::new(self.ty(&a.element_type))),
            TSType::TSTupleType(t) => {
                let mut items = Vec::new();
                for element in &t.element_types {
                    match self.tuple_element(element) {
                        Ok(item) => items.push(item),
                        Err(unsupported) => return unsupported,
                    }
                }
                Ty::Tuple(items)
            }
            TSType::TSNamedTupleMember(m) => match self.tuple_element(&m.element_type) {
                Ok(item) if !m.optional => item,
                Ok(_) => self.unsupported(start, "an optional tuple element"),
                Err(unsupported) => unsupported,
            },
            TSType::TSUnionType(u) => Ty::Union(u.types.iter().map(|t| self.ty(t)).collect()),
            TSType::TSIntersectionType(i) => {
                Ty::Intersection(i.types.iter().map(|t| self.ty(t)).collect())
            }
            TSType::TSParenthesizedType(p) => self.ty(&p.type_annotation),
            TSType::TSTypeOperatorType(op) => match op.operator {
                TSTypeOperatorOperator::Readonly => self.ty(&op.type_annotation),
                TSTypeOperatorOperator::Keyof => Ty::KeyOf {
                    object: Box::new(self.ty(&op.type_annotation)),
                    at: self.loc(start),
                },
                TSTypeOperatorOperator::Unique => self.unsupported(start, "`unique symbol`"),
            },
            TSType::TSLiteralType(lit) => match &lit.literal {
                TSLiteral::BooleanLiteral(b) => Ty::Lit(Lit::Bool(b.value)),
                TSLiteral::NumericLiteral(n) => Ty::Lit(Lit::Num(n.value)),
                TSLiteral::StringLiteral(s) => Ty::Lit(Lit::Str(s.value.to_string())),
                TSLiteral::UnaryExpression(u) => match (&u.operator, &u.argument) {
                    (UnaryOperator::UnaryNegation, Expression::NumericLiteral(n)) => {
                        Ty::Lit(Lit::Num(-n.value))
                    }
                    _ => self.unsupported(start, "a literal expression"),
                },
                TSLiteral::TemplateLiteral(t) => match t.single_quasi() {
                    Some(s) => Ty::Lit(Lit::Str(s.to_string())),
                    None => self.unsupported(start, "a template literal type"),
                },
                TSLiteral::BigIntLiteral(_) => {
                    self.unsupported(start, "a bigint literal (JSON has no bigint)")
                }
            },
            TSType::TSTypeLiteral(lit) => Ty::Object(self.signatures(&lit.members)),
            TSType::TSTypeReference(r) => Ty::Ref {
                name: type_name(&r.type_name),
                args: r
                    .type_arguments
                    .as_ref()
                    .map(|a| a.params.iter().map(|t| self.ty(t)).collect())
                    .unwrap_or_default(),
                at: self.loc(start),
            },
            TSType::TSConditionalType(_) => self.unsupported(start, "a conditional type"),
            TSType::TSMappedType(_) => self.unsupported(start, "a mapped type"),
            TSType::TSFunctionType(_) => self.unsupported(start, "a function type"),
            TSType::TSConstructorType(_) => self.unsupported(start, "a constructor type"),
            TSType::TSImportType(_) => self.unsupported(start, "an `import(..)` type"),
            TSType::TSIndexedAccessType(access) => Ty::Indexed {
                object: Box::new(self.ty(&access.object_type)),
                index: Box::new(self.ty(&access.index_type)),
                at: self.loc(start),
            },
            TSType::TSInferType(_) => self.unsupported(start, "an `infer` type"),
            TSType::TSTemplateLiteralType(_) => self.unsupported(start, "a template literal type"),
            TSType::TSTypePredicate(_) => self.unsupported(start, "a type predicate"),
            TSType::TSTypeQuery(query) => match query.expr_name.as_ts_type_name() {
                Some(name) if query.type_arguments.is_none() => Ty::TypeOf {
                    path: type_name(name).split('.').map(str::to_owned).collect(),
                    at: self.loc(start),
                },
                _ => self.unsupported(start, "`typeof import(..)`"),
            },
            TSType::JSDocNullableType(_)
            | TSType::JSDocNonNullableType(_)
            | TSType::JSDocUnknownType(_) => self.unsupported(start, "a JSDoc type"),
        }
    }

    fn tuple_element(&self, element: &TSTupleElement<'_>) -> Result<Ty, Ty> {
        match element {
            TSTupleElement::TSOptionalType(o) => {
                Err(self.unsupported(o.span.start, "an optional tuple element"))
            }
            TSTupleElement::TSRestType(r) => {
                Err(self.unsupported(r.span.start, "a rest element in a tuple"))
            }
            other => match other.as_ts_type() {
                Some(t) => Ok(self.ty(t)),
                None => Err(self.unsupported(other.span().start, "a tuple element")),
            },
        }
    }
}

/// Renames every reference in `ty` with `resolve` (type names and `typeof` roots).
fn rename_refs(ty: &mut Ty, resolve: &dyn Fn(&mut String)) {
    match ty {
        Ty::Ref { name, args, .. } => {
            resolve(name);
            args.iter_mut().for_each(|a| rename_refs(a, resolve));
        }
        Ty::TypeOf { path, .. } => {
            // `typeof X.y` inside a namespace: `X` may be one of its constants.
            let mut root = path[0].clone();
            resolve(&mut root);
            if root != path[0] {
                let mut qualified: Vec<String> = root.split('.').map(str::to_owned).collect();
                qualified.extend(path.drain(1..));
                *path = qualified;
            }
        }
        Ty::Array(inner) => rename_refs(inner, resolve),
        Ty::Tuple(items) | Ty::Union(items) | Ty::Intersection(items) => {
            items.iter_mut().for_each(|t| rename_refs(t, resolve));
        }
        Ty::Object(obj) => {
            for m in &mut obj.members {
                rename_refs(&mut m.ty, resolve);
            }
            if let Some(index) = &mut obj.index {
                rename_refs(index, resolve);
            }
        }
        Ty::Indexed { object, index, .. } => {
            rename_refs(object, resolve);
            rename_refs(index, resolve);
        }
        Ty::KeyOf { object, .. } => rename_refs(object, resolve),
        _ => {}
    }
}

fn type_name(name: &TSTypeName<'_>) -> String {
    match name {
        TSTypeName::IdentifierReference(id) => id.name.to_string(),
        TSTypeName::QualifiedName(q) => format!("{}.{}", type_name(&q.left), q.right.name),
        TSTypeName::ThisExpression(_) => "this".into(),
    }
}

fn property_name(key: &PropertyKey<'_>) -> Option<String> {
    match key {
        PropertyKey::StaticIdentifier(id) => Some(id.name.to_string()),
        PropertyKey::StringLiteral(s) => Some(s.value.to_string()),
        PropertyKey::NumericLiteral(n) => Some(n.value.to_string()),
        _ => None,
    }
}

/// The value of a const initializer: a literal, `-literal`, or an object of those.
fn const_expr(expr: &Expression<'_>) -> Option<ConstValue> {
    match expr {
        Expression::NumericLiteral(n) => Some(ConstValue::Lit(Lit::Num(n.value))),
        Expression::StringLiteral(s) => Some(ConstValue::Lit(Lit::Str(s.value.to_string()))),
        Expression::BooleanLiteral(b) => Some(ConstValue::Lit(Lit::Bool(b.value))),
        Expression::TemplateLiteral(t) => t
            .single_quasi()
            .map(|s| ConstValue::Lit(Lit::Str(s.to_string()))),
        Expression::UnaryExpression(u) => match (&u.operator, &u.argument) {
            (UnaryOperator::UnaryNegation, Expression::NumericLiteral(n)) => {
                Some(ConstValue::Lit(Lit::Num(-n.value)))
            }
            _ => None,
        },
        Expression::ParenthesizedExpression(p) => const_expr(&p.expression),
        // `{ .. } as const`: every member keeps its literal type.
        Expression::TSAsExpression(cast) => match (&cast.expression, &cast.type_annotation) {
            (Expression::ObjectExpression(object), TSType::TSTypeReference(r)) if matches!(&r.type_name, TSTypeName::IdentifierReference(id) if id.name == "const") =>
            {
                let mut fields = Vec::new();
                for property in &object.properties {
                    let ObjectPropertyKind::ObjectProperty(p) = property else {
                        return None;
                    };
                    let value = match &p.value {
                        Expression::ObjectExpression(_) => return None,
                        other => const_expr(other)?,
                    };
                    fields.push((property_name(&p.key)?, value, None));
                }
                Some(ConstValue::Object(fields))
            }
            (inner, _) => const_expr(inner),
        },
        Expression::TSSatisfiesExpression(s) => const_expr(&s.expression),
        _ => None,
    }
}

/// The value a const's literal type annotation pins it to (`: 64`, `: { readonly w: 64 }`).
fn const_type(ty: &TSType<'_>, docs: &HashMap<u32, String>) -> Option<ConstValue> {
    match ty {
        TSType::TSLiteralType(lit) => match &lit.literal {
            TSLiteral::BooleanLiteral(b) => Some(ConstValue::Lit(Lit::Bool(b.value))),
            TSLiteral::NumericLiteral(n) => Some(ConstValue::Lit(Lit::Num(n.value))),
            TSLiteral::StringLiteral(s) => Some(ConstValue::Lit(Lit::Str(s.value.to_string()))),
            TSLiteral::UnaryExpression(u) => match (&u.operator, &u.argument) {
                (UnaryOperator::UnaryNegation, Expression::NumericLiteral(n)) => {
                    Some(ConstValue::Lit(Lit::Num(-n.value)))
                }
                _ => None,
            },
            _ => None,
        },
        TSType::TSTypeLiteral(lit) => {
            let mut fields = Vec::new();
            for member in &lit.members {
                let TSSignature::TSPropertySignature(p) = member else {
                    return None;
                };
                let name = property_name(&p.key)?;
                let value = const_type(&p.type_annotation.as_ref()?.type_annotation, docs)?;
                fields.push((name, value, docs.get(&p.span.start).cloned()));
            }
            Some(ConstValue::Object(fields))
        }
        TSType::TSParenthesizedType(p) => const_type(&p.type_annotation, docs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsdoc_is_cleaned() {
        assert_eq!(
            clean_jsdoc("/** One line. */").as_deref(),
            Some("One line.")
        );
        assert_eq!(
            clean_jsdoc("/**\n   * First.\n   *\n   * Second.\n   */").as_deref(),
            Some("First.\n\nSecond.")
        );
        assert_eq!(clean_jsdoc("/** */"), None);
        // A paragraph right after a list is not run into its last item.
        assert_eq!(
            clean_jsdoc("/**\n * Means:\n * - a\n * - b\n * After.\n */").as_deref(),
            Some("Means:\n- a\n- b\n\nAfter.")
        );
    }

    #[test]
    fn declarations_and_docs() {
        let text = "/** The doc. */\nexport interface A<T = string> { /** x doc */ x?: T; [k: string]: unknown; f(): void }\nexport declare const GRID: { readonly width: 64 };\ndeclare const N = -3;";
        let parsed = parse_file(0, text).expect("parses");
        assert_eq!(parsed.decls.len(), 3);
        let a = &parsed.decls[0];
        assert_eq!(a.doc.as_deref(), Some("The doc."));
        assert_eq!(a.params.len(), 1);
        let DeclKind::Interface { body, .. } = &a.kind else {
            panic!("interface")
        };
        assert_eq!(body.members[0].doc.as_deref(), Some("x doc"));
        assert!(body.members[0].optional);
        assert!(body.index.is_some());
        assert_eq!(body.skipped.len(), 1);
        assert!(matches!(
            &parsed.decls[1].kind,
            DeclKind::Const(Some(ConstValue::Object(fields)), _) if fields[0].0 == "width"
        ));
        assert!(matches!(
            &parsed.decls[2].kind,
            DeclKind::Const(Some(ConstValue::Lit(Lit::Num(n))), _) if *n == -3.0
        ));
    }

    #[test]
    fn syntax_errors_have_an_offset() {
        let err = parse_file(0, "export interface A { x: }").expect_err("bad");
        assert!(err.offset > 0, "{err:?}");
    }

    #[test]
    fn members_without_a_separator_are_refused_where_the_second_starts() {
        for (text, at) in [
            ("export interface Q { a: string b: number }", "b: number"),
            (
                "export interface P {\n  x: number; y: number\n  z number;\n}",
                "number;\n}",
            ),
            (
                "export type T = { a: { c: number d: string } };",
                "d: string",
            ),
        ] {
            let err = parse_file(0, text).expect_err(text);
            assert_eq!(&text[err.offset as usize..][..at.len()], at, "{text}");
            assert!(err.message.contains("`;` expected"), "{err:?}");
        }
        // A type on its own (a manifest override) too, at its own offsets.
        let err = parse_type(0, "{ a: string b: number }").expect_err("unseparated");
        assert_eq!(err.offset, 12);
        for fine in [
            "export interface R { a: string; b?: number }",
            "export type S = { a: string, b: number; c: boolean\n d: null };",
            "export interface V { a: string }",
        ] {
            parse_file(0, fine).unwrap_or_else(|e| panic!("{fine}: {e:?}"));
        }
    }
}
