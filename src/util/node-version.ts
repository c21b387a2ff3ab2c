/**
 * The Node.js release chaind runs on. Not declared as `engines` in package.json: npm would warn
 * EBADENGINE when the repository's dependencies are installed with an older system Node, which is
 * fine (the project's own Node 24 comes as the `node` devDependency and runs everything). The check
 * is made where chaind starts instead, before anything else is loaded.
 */
export const MIN_NODE_MAJOR = 24;

/** Why `version` (process.versions.node) cannot run chaind, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return undefined;
  return (
    `chaind needs Node.js ${MIN_NODE_MAJOR} or newer, and this is Node.js ${version}: ` +
    "run it with the project's Node (npm start, npm run chaind -- <args>, or npx node src/bin/chaind.ts <args>)"
  );
}
