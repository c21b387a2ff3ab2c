/**
 * Tests that move the chain's clock and mine blocks with Hardhat's network helpers (`time`, `mine`),
 * written as the Hardhat docs write them: they pass on Hardhat's own network and on `chaind dev`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { network } from 'hardhat';

const { ethers, networkHelpers } = await network.getOrCreate();
const { time, mine } = networkHelpers;

const ONE_HOUR = 3600;

describe('Lock: time and mining helpers', () => {
  it('cannot be withdrawn before its unlock time, and can after time.increase', async () => {
    const unlockTime = (await time.latest()) + ONE_HOUR;
    const lock = await ethers.deployContract('Lock', [unlockTime], { value: 1_000n });
    await assert.rejects(lock.withdraw(), /You can't withdraw yet/);
    await time.increase(ONE_HOUR);
    assert.ok((await time.latest()) >= unlockTime);
    await (await lock.withdraw()).wait();
    assert.equal(await ethers.provider.getBalance(await lock.getAddress()), 0n);
  });

  it('time.increaseTo sets the next block time exactly', async () => {
    const target = (await time.latest()) + 10 * ONE_HOUR;
    await time.increaseTo(target);
    assert.equal(await time.latest(), target);
  });

  it('mine(n) adds n blocks, each `interval` seconds after the one before', async () => {
    const before = await time.latestBlock();
    const start = await time.latest();
    await mine(100, { interval: 15 });
    const latest = await time.latestBlock();
    assert.equal(latest, before + 100);
    // the first block at the clock's next time (on chaind it may share the previous block's second),
    // each later one 15 s after the one before
    const first = await ethers.provider.getBlock(before + 1);
    assert.ok(first!.timestamp >= start);
    assert.equal(await time.latest(), first!.timestamp + 99 * 15);
  });
});
