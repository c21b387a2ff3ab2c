import { ponder, type Context, type Event } from 'ponder:registry';
import schema from 'ponder:schema';

ponder.on('Token:Transfer', async ({ event, context }) => {
  await context.db.insert(schema.transfer).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    blockNumber: event.block.number,
    transactionHash: event.transaction.hash,
    logIndex: event.log.logIndex,
    from: event.args.from,
    to: event.args.to,
    value: event.args.value,
    gasUsed: event.transactionReceipt.gasUsed,
  });
});

ponder.on('Factory:ChildCreated', async ({ event, context }) => {
  await context.db.insert(schema.child).values({
    address: event.args.child,
    blockNumber: event.block.number,
    transactionHash: event.transaction.hash,
    creator: event.args.creator,
    label: event.args.label,
  });
});

ponder.on('Child:Poked', async ({ event, context }) => {
  await context.db.insert(schema.poke).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    child: event.log.address,
    transactionHash: event.transaction.hash,
    logIndex: event.log.logIndex,
    by: event.args.by,
    amount: event.args.amount,
    total: event.args.total,
  });
});

type CallName = 'Factory.createChild()' | 'Factory.pokeChild()' | 'Factory.tryPokeChild()' | 'Child.poke()';

/** A call into the factory or a child, as the call tracer reported it. */
async function recordCall(fn: string, event: Event<CallName>, context: Context<CallName>) {
  const { trace } = event;
  await context.db.insert(schema.call).values({
    id: `${event.transaction.hash}-${trace.traceIndex}`,
    transactionHash: event.transaction.hash,
    traceIndex: trace.traceIndex,
    function: fn,
    type: trace.type,
    from: trace.from,
    to: trace.to!,
    input: trace.input,
    output: trace.output ?? null,
    gasUsed: trace.gasUsed,
  });
}

ponder.on('Factory.createChild()', ({ event, context }) => recordCall('createChild', event, context));
ponder.on('Factory.pokeChild()', ({ event, context }) => recordCall('pokeChild', event, context));
ponder.on('Factory.tryPokeChild()', ({ event, context }) => recordCall('tryPokeChild', event, context));
// a reverted call (and any call under one) is not indexed: Ponder leaves out frames with an error
ponder.on('Child.poke()', ({ event, context }) => recordCall('poke', event, context));
