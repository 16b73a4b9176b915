/**
 * Stands in for @aws-sdk/client-lambda in the Lambda bundles (infra/bundling.ts): the root function forwards a path
 * spelt in another letter case (lib/aws/forward.ts), which most requests never need, so the client loads from a file
 * of its own on the first forward. The file itself is the SDK's own client.
 */
import type { InvokeCommandInput, InvokeCommandOutput, InvokeCommand as RealCommand, LambdaClient as RealClient,
  LambdaClientConfig } from '@aws-sdk/client-lambda';
import { lazyModule } from '../../lazy-module.js';
import { traced } from '../../observability/tracer.js';

const sdk = () => lazyModule<{ InvokeCommand: typeof RealCommand; LambdaClient: typeof RealClient }>('@aws-sdk/client-lambda');

export class InvokeCommand {
  constructor(readonly input: InvokeCommandInput) {}
}

export class LambdaClient {
  private real: RealClient | null = null;

  constructor(private readonly config: LambdaClientConfig) {}

  send(command: InvokeCommand): Promise<InvokeCommandOutput> {
    const { InvokeCommand: Command, LambdaClient: Client } = sdk();
    this.real ??= traced(new Client(this.config));
    return this.real.send(new Command(command.input));
  }
}
