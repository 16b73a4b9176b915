/**
 * Hands an import to the worker (contract §20): in AWS a message on the stack's import queue (CALENDAR_IMPORT_QUEUE_URL),
 * which the worker function consumes; on the local server the worker running in the same process, which registers itself
 * (lib/local/imports.ts). Without either (a script, a unit test) nothing starts at once, and the dispatcher
 * (lib/imports/dispatch.ts) finds the queued run later. A message only says "look at this import": the run item decides
 * what there is to do, so a duplicate or stale message is harmless.
 */
export type LocalWorker = (importId: number) => void;

let localWorker: LocalWorker | null = null;

export const useLocalWorker = (worker: LocalWorker | null): void => {
  localWorker = worker;
};

let sqs: Promise<(body: string) => Promise<void>> | null = null;

/** The SQS client, loaded on first use. */
function sender(url: string) {
  sqs ??= import('@aws-sdk/client-sqs').then(({ SQSClient, SendMessageCommand }) => {
    const client = new SQSClient({});
    return async (body: string) => {
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
    };
  });
  return sqs;
}

export const resetQueueClient = (): void => {
  sqs = null;
};

export interface WorkerMessage {
  import: number;
}

export async function sendToWorker(importId: number): Promise<void> {
  const url = process.env.CALENDAR_IMPORT_QUEUE_URL;
  if (url) {
    const message: WorkerMessage = { import: importId };
    await (await sender(url))(JSON.stringify(message));
    return;
  }
  localWorker?.(importId);
}
