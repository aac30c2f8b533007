/**
 * `local/layers`: the layer rules of docs/architecture.md, checked on resolved paths.
 *
 * Every module specifier a file names — `import … from`, `export … from`, `import type`,
 * `import x = require(…)`, `typeof import(…)`, dynamic `import(…)` and `require(…)` with a literal
 * argument — is resolved against the importing file (relative specifiers) or mapped through
 * `selfReferences` (the package's own name, which Node resolves to its root entry). The folder it
 * lands in decides, not how the specifier is spelled: `'../index.js'`, `'./../client/x.js'` and
 * `'../../src/client/x.js'` are all caught. A specifier computed at run time cannot be resolved
 * and is not checked.
 *
 * Options (one object):
 * - `root`: absolute path of the repository (the folder the paths below are relative to).
 * - `ours`: the folder whose files are layered (`'src'`); a target outside it is not checked.
 * - `layers`: `[{ path, rule, may, typesFrom? }]`. A file belongs to the layer with the longest
 *   `path` that contains it (a folder, or one file). It may import its own layer, the paths in
 *   `may`, and, as types only, the paths in `typesFrom`; any other target inside `ours` is an
 *   error whose message is `rule`.
 * - `packages`: `[{ regex, message }]`: bare specifiers that no file of `ours` may import.
 * - `selfReferences`: `{ specifier: path }`: the package's own name (and subpaths) and the file
 *   each one resolves to.
 * - `see`: the page the messages point to.
 * - `packageRoot`: the folder of the package the checked files belong to (`'.'` for the repository
 *   root); `otherPackages`: folders inside it that are packages of their own. A relative specifier
 *   that lands outside `packageRoot`, or inside one of `otherPackages`, is an error: another package
 *   is imported by its name, as a user's install would, never by a path into its folder.
 */
import path from 'node:path';

/** A module path without its extension: TypeScript sources import `./x.js` for `./x.ts`. */
const modulePath = (p) => p.replace(/(\.d)?\.[cm]?[jt]sx?$/, '');

/** `target` (repo-relative, forward slashes) is `folderOrFile` (either spelled with any script extension) or inside it. */
function within(target, folderOrFile) {
  const [t, f] = [modulePath(target), modulePath(folderOrFile)];
  return t === f || t.startsWith(`${f}/`);
}

const toRepoPath = (root, absolute) => path.relative(root, absolute).split(path.sep).join('/');

/** The string a specifier node holds, or undefined when it is computed. */
function literal(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked ?? undefined;
  return undefined;
}

/** True when an import/export declaration brings in types only (erased at build time). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Each layer of src/ imports only the layers below it (docs/architecture.md), checked on resolved paths.' },
    schema: [{
      type: 'object',
      properties: {
        root: { type: 'string' },
        ours: { type: 'string' },
        see: { type: 'string' },
        layers: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              path: { type: 'string' },
              rule: { type: 'string' },
              may: { type: 'array', items: { type: 'string' } },
              typesFrom: { type: 'array', items: { type: 'string' } },
            },
            required: ['path', 'rule', 'may'],
            additionalProperties: false,
          },
        },
        packages: {
          type: 'array',
          items: { type: 'object', properties: { regex: { type: 'string' }, message: { type: 'string' } }, required: ['regex', 'message'], additionalProperties: false },
        },
        selfReferences: { type: 'object', additionalProperties: { type: 'string' } },
        packageRoot: { type: 'string' },
        otherPackages: { type: 'array', items: { type: 'string' } },
      },
      required: ['root', 'ours', 'layers'],
      additionalProperties: false,
    }],
    messages: {
      upward: 'Layer rule (local/layers): {{rule}}. {{specifier}} is {{target}}. Move the shared piece down instead of importing up (see {{see}}).',
      typesOnly: 'Layer rule (local/layers): {{rule}}. {{specifier}} is {{target}}: import types only from it (`import type`) (see {{see}}).',
      package: 'Layer rule (local/layers): {{message}} ({{specifier}}; see {{see}}).',
      crossPackage: 'Layer rule (local/layers): {{specifier}} is {{target}}, in another package. Import that package by its name (for the protocol: \'botbuilder-conversation-analytics/protocol\'), never by a path into its folder (see {{see}}).',
    },
  },

  create(context) {
    const options = context.options[0];
    const { root, ours } = options;
    const see = options.see ?? 'docs/architecture.md';
    const file = toRepoPath(root, context.physicalFilename ?? context.filename);
    if (!within(file, ours)) return {};
    const layer = options.layers
      .filter((l) => within(file, l.path))
      .sort((a, b) => b.path.length - a.path.length)[0];
    const packages = (options.packages ?? []).map((p) => ({ regex: new RegExp(p.regex), message: p.message }));
    const selfReferences = Object.entries(options.selfReferences ?? {});
    const dir = path.dirname(path.resolve(root, file));
    const packageRoot = options.packageRoot ?? '.';
    const otherPackages = options.otherPackages ?? [];
    /** True when a repo-relative target lies in another package than the checked file's. */
    const foreign = (target) =>
      (packageRoot !== '.' && !within(target, packageRoot)) || target.startsWith('../') || otherPackages.some((p) => within(target, p));

    /** The repo-relative file or folder a specifier names, or undefined for another package. */
    function resolve(specifier) {
      if (specifier.startsWith('.') || specifier.startsWith('/')) return toRepoPath(root, path.resolve(dir, specifier));
      if (specifier.startsWith('file:')) return toRepoPath(root, new URL(specifier).pathname);
      const self = selfReferences.find(([name]) => specifier === name);
      return self?.[1];
    }

    function check(node, sourceNode, isTypeOnly) {
      const specifier = literal(sourceNode);
      if (specifier === undefined) return;
      const quoted = `'${specifier}'`;
      const banned = packages.find((p) => p.regex.test(specifier));
      if (banned) {
        context.report({ node: sourceNode, messageId: 'package', data: { message: banned.message, specifier: quoted, see } });
        return;
      }
      const target = resolve(specifier);
      if (target !== undefined && (specifier.startsWith('.') || specifier.startsWith('/')) && foreign(target)) {
        context.report({ node: sourceNode, messageId: 'crossPackage', data: { specifier: quoted, target, see } });
        return;
      }
      if (!layer) return;
      if (target === undefined || !within(target, ours)) return;
      if (within(target, layer.path) || layer.may.some((p) => within(target, p))) return;
      const data = { rule: layer.rule, specifier: quoted, target, see };
      if ((layer.typesFrom ?? []).some((p) => within(target, p))) {
        if (!isTypeOnly) context.report({ node: sourceNode, messageId: 'typesOnly', data });
        return;
      }
      context.report({ node: sourceNode, messageId: 'upward', data });
    }

    return {
      ImportDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal, true),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' && check(node, node.moduleReference.expression, node.importKind === 'type'),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length === 1) check(node, node.arguments[0], false);
      },
    };
  },
};
