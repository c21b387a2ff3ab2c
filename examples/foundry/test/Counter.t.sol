// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.28;

import {Counter} from "../src/Counter.sol";

// forge-std is not installed (the project builds offline): the few cheatcodes used, declared here
interface Vm {
    function envAddress(string calldata name) external view returns (address);
    function envUint(string calldata name) external view returns (uint256);
}

/// Run with `forge test --fork-url <chaind dev>`: reads a Counter that was deployed on the dev
/// chain beforehand (its address in COUNTER, its count in COUNT), then changes it on the fork only.
contract CounterForkTest {
    Vm private constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function test_readsTheDeployedCounter() public view {
        Counter counter = Counter(vm.envAddress("COUNTER"));
        require(address(counter).code.length > 0, "no contract at COUNTER on the forked chain");
        require(counter.x() == vm.envUint("COUNT"), "the fork does not see the dev chain's count");
    }

    function test_incrementsOnTheFork() public {
        Counter counter = Counter(vm.envAddress("COUNTER"));
        uint256 before = counter.x();
        counter.inc();
        require(counter.x() == before + 1, "inc did not count on the fork");
    }
}
