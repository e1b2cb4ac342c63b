// The TypeScript compiler's syntax verdict on declaration files: for each file, its syntactic
// diagnostics (what `tsc` reports before any type checking) as `line:column: message`.
// `tests/npm_contracts.rs` compares them with what mcp-bindgen's contracts parser accepts.
//
// Usage: node dts_syntax.mjs FILE.d.ts...   (prints one JSON object: file -> [diagnostics])

import ts from "typescript";

const files = process.argv.slice(2);
const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: [] });
const verdicts = {};
for (const file of files) {
  const source = program.getSourceFile(file);
  verdicts[file] = program.getSyntacticDiagnostics(source).map((d) => {
    const { line, character } = source.getLineAndCharacterOfPosition(d.start ?? 0);
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    return `${line + 1}:${character + 1}: TS${d.code} ${text}`;
  });
}
console.log(JSON.stringify(verdicts));
