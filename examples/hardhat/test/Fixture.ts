/**
 * Fixtures as the Hardhat docs write them: `loadFixture` deploys once and every later test starts
 * from that state again (evm_snapshot / evm_revert underneath), and `takeSnapshot` restores by hand.
 * They pass on Hardhat's own network and on `chaind dev`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { network } from 'hardhat';

const { ethers, networkHelpers } = await network.getOrCreate();
const { loadFixture, takeSnapshot, time } = networkHelpers;

async function deployCounter() {
  const counter = await ethers.deployContract('Counter');
  await (await counter.incBy(10n)).wait();
  return { counter };
}

describe('Counter from a fixture', () => {
  it('starts from the fixture and changes it', async () => {
    const { counter } = await loadFixture(deployCounter);
    assert.equal(await counter.x(), 10n);
    await (await counter.inc()).wait();
    assert.equal(await counter.x(), 11n);
  });

  it('starts from the fixture again: what the test before changed is undone', async () => {
    const { counter } = await loadFixture(deployCounter);
    assert.equal(await counter.x(), 10n);
    await (await counter.incBy(5n)).wait();
    assert.equal(await counter.x(), 15n);
  });

  it('takeSnapshot().restore() undoes the blocks, the state and the clock', async () => {
    const { counter } = await loadFixture(deployCounter);
    const snapshot = await takeSnapshot();
    const block = await time.latestBlock();
    const now = await time.latest();
    await time.increase(3600);
    await (await counter.inc()).wait();
    assert.equal(await counter.x(), 11n);
    await snapshot.restore();
    assert.equal(await time.latestBlock(), block);
    assert.equal(await time.latest(), now);
    assert.equal(await counter.x(), 10n);
    // the next block comes without the hour
    await (await counter.inc()).wait();
    assert.ok((await time.latest()) < now + 3600);
  });
});
