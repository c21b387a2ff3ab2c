/**
 * Builds the pinned grpcurl with the Go toolchain (`go install <module>/cmd/grpcurl@<version>`) into
 * a git-ignored folder of this repository, where the gRPC reflection e2e test finds it. A no-op when
 * that exact version is already there.
 *
 * Usage: node scripts/install-grpcurl.ts [--if-go]   (--if-go: without Go, or if the build fails, say
 * so and exit 0: what `npm test` runs first; the test then skips, naming this command)
 */
import { GRPCURL_MODULE, GRPCURL_VERSION, grpcurlInstalled, grpcurlPath } from '../test/helpers/grpcurl.ts';
import { installGoTool } from './go-install.ts';

installGoTool(
  {
    name: `grpcurl v${GRPCURL_VERSION}`,
    pkg: `${GRPCURL_MODULE}/cmd/grpcurl@v${GRPCURL_VERSION}`,
    target: grpcurlPath(),
    withoutGo: 'the grpcurl e2e test will be skipped',
    check: () => (grpcurlInstalled() ? undefined : 'it does not run, or is not that version'),
  },
  process.argv.includes('--if-go'),
);
