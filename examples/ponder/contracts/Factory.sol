// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A contract the factory creates: the indexer finds it through the factory's ChildCreated event.
contract Child {
    address public immutable factory;
    string public label;
    uint256 public total;

    event Poked(address indexed by, uint256 amount, uint256 total);

    constructor(string memory label_) {
        factory = msg.sender;
        label = label_;
    }

    function poke(uint256 amount) external returns (uint256) {
        require(amount != 0, "nothing to add");
        total += amount;
        emit Poked(msg.sender, amount, total);
        return total;
    }
}

/// Creates children, and calls into them (nested calls the call tracer records under the factory's).
contract Factory {
    address[] public children;

    event ChildCreated(address indexed child, address indexed creator, string label);

    function createChild(string calldata label) external returns (address child) {
        child = address(new Child(label));
        children.push(child);
        emit ChildCreated(child, msg.sender, label);
    }

    function pokeChild(address child, uint256 amount) external returns (uint256) {
        return Child(child).poke(amount);
    }

    /// Calls poke and survives its revert: the transaction succeeds, the inner call frame is reverted.
    function tryPokeChild(address child, uint256 amount) external returns (bool ok) {
        (ok, ) = child.call(abi.encodeCall(Child.poke, (amount)));
    }

    function childCount() external view returns (uint256) {
        return children.length;
    }
}
