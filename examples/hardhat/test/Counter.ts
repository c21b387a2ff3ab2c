/**
 * Tests written the usual way, without waitForDeployment() or waiting for receipts between
 * transactions: what anvil's and Hardhat's automine allow, and `chaind dev`'s on-demand mining too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { network } from 'hardhat';

const { ethers } = await network.getOrCreate();

describe('Counter on chaind dev', () => {
  it('is called right after deployContract(), without waitForDeployment()', async () => {
    const counter = await ethers.deployContract('Counter');
    await counter.inc();
    assert.equal(await counter.x(), 1n);
  });

  it('takes a transaction sent right after the deploy, and its events', async () => {
    const [, other] = await ethers.getSigners();
    const counter = await ethers.deployContract('Counter', [], other);
    const tx = await counter.incBy(5n);
    const receipt = await tx.wait();
    assert.equal(receipt?.status, 1);
    const events = await counter.queryFilter(counter.filters.Increment(), receipt?.blockNumber);
    assert.deepEqual(
      events.map((e) => e.args.by),
      [5n],
    );
    assert.equal(await counter.x(), 5n);
  });

  it('reverts with the reason', async () => {
    const counter = await ethers.deployContract('Counter');
    await assert.rejects(counter.incBy(0n), /incBy: increment should be positive/);
  });
});
