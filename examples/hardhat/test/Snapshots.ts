/** Hardhat's `takeSnapshot`, as the Hardhat docs use it: `restore()` undoes what came after. */
import { expect } from 'chai';
import { network } from 'hardhat';

const { ethers, networkHelpers } = await network.getOrCreate();
const { mine, setBalance, takeSnapshot, time } = networkHelpers;

describe('takeSnapshot', function () {
  it('restore() brings back the blocks, clock, balances and contract state of the snapshot', async function () {
    const counter = await ethers.deployContract('Counter');
    const address = '0x000000000000000000000000000000000000bEEF';
    const snapshot = await takeSnapshot();
    const block = await time.latestBlock();
    const now = await time.latest();

    await counter.inc();
    await setBalance(address, 12345n);
    await time.increase(3600);
    await mine(10);
    expect(await counter.x()).to.equal(1n);

    await snapshot.restore();
    expect(await time.latestBlock()).to.equal(block);
    expect(await time.latest()).to.equal(now);
    expect(await ethers.provider.getBalance(address)).to.equal(0n);
    expect(await counter.x()).to.equal(0n);
  });

  it('a snapshot can be restored more than once', async function () {
    const counter = await ethers.deployContract('Counter');
    const snapshot = await takeSnapshot();
    for (let i = 0; i < 2; i++) {
      await counter.inc();
      expect(await counter.x()).to.equal(1n);
      await snapshot.restore();
      expect(await counter.x()).to.equal(0n);
    }
  });
});
