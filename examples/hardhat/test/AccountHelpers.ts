/**
 * Hardhat's network helpers that edit the chain's state, as the Hardhat docs use them:
 * `setBalance`, `impersonateAccount`, `setStorageAt`, `mine` and `time`. None needs a snapshot.
 */
import { expect } from 'chai';
import { network } from 'hardhat';

const { ethers, networkHelpers } = await network.getOrCreate();
const { getStorageAt, impersonateAccount, mine, setBalance, setStorageAt, stopImpersonatingAccount, time } =
  networkHelpers;

const WHALE = '0x28C6c06298d514Db089934071355E5743bf21d60';

describe('Network helpers: balances, impersonation, storage', function () {
  it('setBalance sets any address’s balance', async function () {
    await setBalance(WHALE, 100n * 10n ** 18n);
    expect(await ethers.provider.getBalance(WHALE)).to.equal(100n * 10n ** 18n);
  });

  it('impersonateAccount lets a test send from an address it has no key for', async function () {
    const [owner] = await ethers.getSigners();
    await setBalance(WHALE, ethers.parseEther('10'));
    await impersonateAccount(WHALE);
    const whale = await ethers.getSigner(WHALE);

    await expect(
      whale.sendTransaction({ to: owner.address, value: ethers.parseEther('1') }),
    ).to.changeEtherBalances(ethers, [whale, owner], [-ethers.parseEther('1'), ethers.parseEther('1')]);

    await stopImpersonatingAccount(WHALE);
  });

  it('setStorageAt rewrites a slot: Lock unlocks once its unlockTime (slot 0) is in the past', async function () {
    const unlockTime = (await time.latest()) + 365 * 24 * 60 * 60;
    const lock = await ethers.deployContract('Lock', [unlockTime], { value: 1_000n });
    await expect(lock.withdraw()).to.be.revertedWith("You can't withdraw yet");

    await setStorageAt(lock.target, 0, 1);
    expect(await getStorageAt(lock.target, 0)).to.equal(ethers.toBeHex(1, 32));
    expect(await lock.unlockTime()).to.equal(1n);

    await expect(lock.withdraw()).to.emit(lock, 'Withdrawal');
  });

  it('mine and time.increase move the chain forward', async function () {
    const block = await time.latestBlock();
    const now = await time.latest();
    await mine(1000);
    expect(await time.latestBlock()).to.equal(block + 1000);
    await time.increase(3600);
    expect(await time.latest()).to.be.greaterThanOrEqual(now + 3600);
  });
});
