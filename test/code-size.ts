import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ROOT } from "./import-graph";

/**
 * Function sizes, read from the TypeScript syntax tree: every function, method, arrow
 * function and function expression of a folder's sources (tests left out), with its name
 * (the declaration's, or the variable or property it is assigned to) and its length in lines.
 */

export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

const TEST = /\.(test|spec)\.(ts|tsx)$/;

function sourcesOf(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated" && entry.name !== "node_modules") out.push(...sourcesOf(at));
    } else if (/\.(ts|tsx)$/.test(entry.name) && !TEST.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(at);
  }
  return out;
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (ts.isCallExpression(parent)) {
    // memo(function X…), forwardRef((props) => …) assigned to a name: the name of what it is assigned to.
    const holder = parent.parent;
    if (ts.isVariableDeclaration(holder)) return holder.name.getText();
    return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  }
  return "(anonymous)";
}

export function functionSizes(dir: string): FunctionSize[] {
  const out: FunctionSize[] = [];
  for (const file of sourcesOf(path.join(ROOT, dir))) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node)) {
        if (node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          out.push({ file: path.relative(ROOT, file), name: nameOf(node), line: start + 1, lines: end - start + 1 });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** React components: functions of .tsx files named with a capital letter. */
export function componentSizes(dir: string): FunctionSize[] {
  return functionSizes(dir).filter((f) => f.file.endsWith(".tsx") && /^[A-Z]/.test(f.name));
}
