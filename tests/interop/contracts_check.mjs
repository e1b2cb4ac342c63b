// Lists, for every interface and type alias a declaration file declares at its top level, what
// the TypeScript compiler makes of it: for object types, every property (inherited ones too)
// with its optionality (`?:` or `| undefined`) and nullability (`| null`); for the others, what
// kind of type it is. `tests/contracts_check.rs` compares this with the Rust that mcp-bindgen
// generates from the same file.
//
// Usage: node contracts_check.mjs FILE.d.ts...   (prints one JSON object: file -> declarations)

import ts from "typescript";

const files = process.argv.slice(2);
const program = ts.createProgram(files, {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  target: ts.ScriptTarget.ES2022,
});
const checker = program.getTypeChecker();

/** The kind of a type, and for object types their properties. */
function describe(type) {
  if (type.isUnion()) {
    const members = type.types.filter(
      (t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)),
    );
    if (members.length === 1 && !(members[0].flags & ts.TypeFlags.BooleanLiteral)) {
      return { ...describe(members[0]), nullable: true };
    }
    return { kind: "union" };
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    return { kind: "array" };
  }
  if (type.flags & ts.TypeFlags.Object || type.isIntersection()) {
    if (type.getCallSignatures().length > 0) {
      return { kind: "function" };
    }
    if (checker.getIndexInfosOfType(type).some((i) => i.keyType.flags & ts.TypeFlags.Number)) {
      return { kind: "array" };
    }
    const properties = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (declaration && ts.isMethodSignature(declaration)) {
        continue; // behaviour, not data
      }
      const propertyType = checker.getTypeOfSymbol(property);
      if (propertyType.getCallSignatures().length > 0) {
        continue; // a function-typed member: behaviour, not data
      }
      const parts = propertyType.isUnion() ? propertyType.types : [propertyType];
      const data = parts.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
      const never = propertyType.flags & ts.TypeFlags.Never;
      const optional =
        (property.flags & ts.SymbolFlags.Optional) !== 0 ||
        parts.some((t) => t.flags & ts.TypeFlags.Undefined);
      if ((never || data.length === 0) && optional && !parts.some((t) => t.flags & ts.TypeFlags.Null)) {
        continue; // `f?: never`: never present
      }
      properties.push({
        name: property.getName(),
        optional,
        nullable: parts.some((t) => t.flags & ts.TypeFlags.Null),
      });
    }
    const index = checker.getIndexInfosOfType(type).some((i) => i.keyType.flags & ts.TypeFlags.String);
    return { kind: "object", properties, index };
  }
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
    return { kind: "any" };
  }
  return { kind: "scalar" };
}

const out = {};
for (const file of files) {
  const source = program.getSourceFile(file);
  if (!source) {
    throw new Error(`${file}: not read by the compiler`);
  }
  const declarations = {};
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) {
      continue;
    }
    const name = statement.name.text;
    if (statement.typeParameters?.some((p) => !p.default)) {
      declarations[name] = { kind: "generic" };
      continue;
    }
    const symbol = checker.getSymbolAtLocation(statement.name);
    declarations[name] = describe(checker.getDeclaredTypeOfSymbol(symbol));
  }
  out[file] = declarations;
}
process.stdout.write(JSON.stringify(out));
