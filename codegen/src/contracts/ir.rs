//! The contracts' own representation of TypeScript declarations: plain data, independent of
//! oxc, so that a parser upgrade touches `parse.rs` only.

/// A position in one of the contract files: the file's index and a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Loc {
    pub file: usize,
    pub offset: u32,
}

/// One declaration (`interface`, `type`, `const`, `enum`) of a contract file.
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    /// The name as declared.
    pub name: String,
    /// Where the name is.
    pub at: Loc,
    /// The JSDoc comment, cleaned of its `/** * */` frame.
    pub doc: Option<String>,
    /// Type parameters (`<T = unknown>`).
    pub params: Vec<Param>,
    pub kind: DeclKind,
}

/// A type parameter and its default.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub name: String,
    pub default: Option<Ty>,
}

#[derive(Debug, Clone)]
pub(crate) enum DeclKind {
    /// `interface X extends A, B { .. }`
    Interface { extends: Vec<Ty>, body: Obj },
    /// `type X = ..`
    Alias(Ty),
    /// `declare const X = 320`, `declare const X: { readonly w: 64 }`, `const X = {..} as
    /// const`: the literal value when there is one, and the type annotation as written.
    Const(Option<ConstValue>, Option<Ty>),
    /// `enum X { A = "a" }`
    Enum(Vec<EnumMember>),
}

/// A member of a TypeScript `enum`.
#[derive(Debug, Clone)]
pub(crate) struct EnumMember {
    pub name: String,
    pub value: Option<Lit>,
}

/// The value of a `const` declaration, from its initializer or its literal type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConstValue {
    Lit(Lit),
    /// `{ readonly width: 64; .. }`: name, value, JSDoc.
    Object(Vec<(String, ConstValue, Option<String>)>),
}

/// An object type: an interface body or a type literal.
#[derive(Debug, Clone, Default)]
pub(crate) struct Obj {
    pub members: Vec<Member>,
    /// `[key: string]: T`.
    pub index: Option<Box<Ty>>,
    /// Where the index signature is.
    pub index_at: Option<Loc>,
    /// Methods, call and construct signatures: what they are and where.
    pub skipped: Vec<(Loc, &'static str)>,
}

/// A property of an object type.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub name: String,
    pub optional: bool,
    pub ty: Ty,
    pub doc: Option<String>,
    pub at: Loc,
    /// The Rust name of the declaration the member was written in, once known (lowering
    /// names a member's inline types after it, wherever the member is merged into).
    pub owner: Option<String>,
}

/// A literal type or value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lit {
    Str(String),
    Num(f64),
    Bool(bool),
}

/// Integer widths an override can ask for (`integer` is `i64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntKind {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

/// A TypeScript type.
#[derive(Debug, Clone)]
pub(crate) enum Ty {
    Any,
    Unknown,
    Never,
    Undefined,
    Null,
    String,
    Number,
    Boolean,
    /// The `object` keyword.
    ObjectKeyword,
    /// Only from overrides: `integer`, `u32`, ...
    Int(IntKind),
    /// Only from overrides: `f32` (`f64` is `number`).
    F32,
    Lit(Lit),
    Ref {
        name: String,
        args: Vec<Ty>,
        at: Loc,
    },
    Array(Box<Ty>),
    Tuple(Vec<Ty>),
    Union(Vec<Ty>),
    Intersection(Vec<Ty>),
    Object(Obj),
    /// `T["key"]`, `T["a" | "b"]`, `T[keyof T]`, `T[number]`: the type of the members the
    /// index names (of each member, for a union), or an array's element.
    Indexed {
        object: Box<Ty>,
        index: Box<Ty>,
        at: Loc,
    },
    /// `typeof NAME` or `typeof NAME.a.b`: the type of a declared constant.
    TypeOf {
        path: Vec<String>,
        at: Loc,
    },
    /// `keyof T`: the union of `T`'s member names.
    KeyOf {
        object: Box<Ty>,
        at: Loc,
    },
    /// What two parts of an intersection make of one member when their types share no value
    /// (TypeScript's `never`): the member, and where each part declares it.
    Conflict {
        member: String,
        at: Loc,
        other: Loc,
    },
    /// A construct with no JSON Schema form: what it is, where, and what to do.
    Unsupported {
        what: String,
        at: Loc,
    },
}

impl Ty {
    /// The members of a (nested) union with `null` and `undefined` taken out, and whether
    /// each was there.
    pub(crate) fn strip_null(&self) -> (Vec<&Ty>, bool, bool) {
        let mut rest = Vec::new();
        let mut null = false;
        let mut undefined = false;
        collect(self, &mut rest, &mut null, &mut undefined);
        (rest, null, undefined)
    }
}

fn collect<'a>(ty: &'a Ty, rest: &mut Vec<&'a Ty>, null: &mut bool, undefined: &mut bool) {
    match ty {
        Ty::Union(members) => {
            for m in members {
                collect(m, rest, null, undefined);
            }
        }
        Ty::Null => *null = true,
        Ty::Undefined => *undefined = true,
        other => rest.push(other),
    }
}
