/**
 * Stands in for `@aws-sdk/endpoint-cache` in the Lambda bundles (infra/bundling.ts). The DynamoDB client makes an
 * endpoint cache when it is constructed (its endpoint-discovery configuration), but only the endpoint-discovery
 * middleware reads or writes it, and none of DynamoDB's commands adds that middleware; the cache and its LRU package
 * (mnemonist, obliterator) would add about 8 KB to every bundle. Anything that reached it would fail loudly.
 */
const unused = (): never => {
  throw new Error('endpoint discovery is not bundled (lib/aws/no-endpoint-cache.ts)');
};

export class EndpointCache {
  getEndpoint(_key: string): never {
    return unused();
  }
  get(_key: string): never {
    return unused();
  }
  set(_key: string, _endpoints: unknown): never {
    return unused();
  }
  delete(_key: string): never {
    return unused();
  }
  has(_key: string): never {
    return unused();
  }
  clear(): never {
    return unused();
  }
}
