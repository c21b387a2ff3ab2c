// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.28;

import {Counter} from "../src/Counter.sol";

interface Vm {
    function envUint(string calldata name) external view returns (uint256);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

contract CounterScript {
    Vm private constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() public {
        vm.startBroadcast(vm.envUint("PRIVATE_KEY"));
        Counter counter = new Counter();
        counter.inc();
        vm.stopBroadcast();
        require(counter.x() == 1, "inc did not count");
    }
}
