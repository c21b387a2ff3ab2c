//! A block's transaction on revm: `execute` runs one signed transaction with every consensus check
//! on (nonce, funds, fee cap, intrinsic gas and the EIP-7623 floor, EIP-3607), over the same
//! JS-callback state as `call`, and answers what it changed instead of applying it: the block
//! executor in JS writes the changes into the block's state overlay, so the chain's own rules
//! (address association, the fee collector's base-fee share, the failed-before-execution rule)
//! stay in one place and hold for both engines.
//!
//! Nothing is timed here: a block's transaction runs to its end, so every node gets the same
//! result (the eth_call path gives up after a time slice instead).

use napi::bindgen_prelude::{Function, Unknown};
use napi::{Error, Status};
use napi_derive::napi;
use revm::context::either::Either;
use revm::context::{CfgEnv, TxEnv};
use revm::context_interface::result::{EVMError, ExecutionResult, HaltReason, OutOfGasError};
use revm::context_interface::transaction::{
    AccessList, AccessListItem, Authorization, SignedAuthorization,
};
use revm::context_interface::ContextTr;
use revm::handler::EthPrecompiles;
use revm::inspector::Inspector;
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome, InstructionResult};
use revm::primitives::hardfork::SpecId;
use revm::primitives::{Address, Bytes, TxKind, B256, KECCAK_EMPTY, U256};
use revm::{ExecuteEvm, InspectEvm, MainBuilder, MainnetEvm};

use crate::{be_u64, enter, precompiles, string, take_evm, uint8_array, Callbacks, Host, SimCtx};

/// `tx`: type[1] from[20] hasTo[1] to[20] value[32] gasLimit[8] maxFee[16] maxPriority[16]
/// nonce[8] hasChainId[1] chainId[8], big-endian (legacy and EIP-2930 txs: maxFee = maxPriority =
/// gasPrice).
const EXEC_TX_LEN: usize = 131;

/// Collects the addresses of a transaction's call tree for the address index, as the JS engine's
/// message listeners do: the caller, callee and code address of every message below the top one
/// (a creation's caller only), the addresses created at any depth (not a creation that collided),
/// and the beneficiaries of selfdestructs in frames that did not fail.
#[derive(Default)]
pub(crate) struct Collector {
    on: bool,
    depth: usize,
    internal: Vec<Address>,
    created: Vec<Address>,
    /// (depth of the frame that ran it, beneficiary)
    selfdestructs: Vec<(usize, Address)>,
}

impl Collector {
    fn note(&mut self, a: Address) {
        if !self.internal.contains(&a) {
            self.internal.push(a);
        }
    }
    /// A frame at `depth` ended: a failed one takes its (and its callees') selfdestructs with it.
    fn frame_end(&mut self, ok: bool) {
        let depth = self.depth;
        self.depth -= 1;
        if !ok {
            self.selfdestructs.retain(|(d, _)| *d < depth);
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX> for Collector {
    fn call(&mut self, _: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if self.on {
            if self.depth > 0 {
                self.note(inputs.caller);
                self.note(inputs.target_address);
                self.note(inputs.bytecode_address);
            }
            self.depth += 1;
        }
        None
    }
    fn call_end(&mut self, _: &mut CTX, _: &CallInputs, outcome: &mut CallOutcome) {
        if self.on {
            self.frame_end(outcome.result.result.is_ok());
        }
    }
    fn create(&mut self, _: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        if self.on {
            if self.depth > 0 {
                self.note(inputs.caller());
            }
            self.depth += 1;
        }
        None
    }
    fn create_end(&mut self, _: &mut CTX, _: &CreateInputs, outcome: &mut CreateOutcome) {
        if self.on {
            if let Some(a) = outcome.address {
                if outcome.result.result != InstructionResult::CreateCollision {
                    self.created.push(a);
                }
            }
            self.frame_end(outcome.result.result.is_ok());
        }
    }
    fn selfdestruct(&mut self, _: Address, target: Address, _: U256) {
        if self.on {
            self.selfdestructs.push((self.depth, target));
        }
    }
}

type BlockEvm = MainnetEvm<SimCtx, Collector>;

thread_local! {
    static BLOCK_EVMS: std::cell::RefCell<Vec<(SpecId, BlockEvm)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn new_block_evm(spec: SpecId) -> BlockEvm {
    let host = Host::new(Callbacks::NONE);
    let cfg = CfgEnv::new_with_spec(spec);
    let mut evm = SimCtx::new(host, spec)
        .with_cfg(cfg)
        .build_mainnet_with_inspector(Collector::default());
    evm.precompiles = EthPrecompiles {
        precompiles: precompiles(spec),
        spec,
    };
    evm
}

/// The JS engine's words for a halt (its EVMError messages), so a receipt's error reads the same
/// whichever engine ran the block.
fn halt_words(reason: &HaltReason) -> &'static str {
    match reason {
        HaltReason::OutOfGas(OutOfGasError::ReentrancySentry) => "out of gas",
        HaltReason::OutOfGas(_) | HaltReason::OutOfOffset => "out of gas",
        HaltReason::OpcodeNotFound | HaltReason::InvalidFEOpcode | HaltReason::NotActivated => {
            "invalid opcode"
        }
        HaltReason::InvalidJump => "invalid JUMP",
        HaltReason::StackUnderflow => "stack underflow",
        HaltReason::StackOverflow => "stack overflow",
        HaltReason::CreateCollision => "create collision",
        HaltReason::CreateContractSizeLimit => "code size to deposit exceeds maximum code size",
        HaltReason::CreateContractStartingWithEF => "invalid bytecode deployed",
        HaltReason::CreateInitCodeSizeLimit => "initcode exceeds max initcode size",
        HaltReason::StateChangeDuringStaticCall | HaltReason::CallNotAllowedInsideStatic => {
            "static state change"
        }
        HaltReason::OutOfFunds => "insufficient balance",
        HaltReason::NonceOverflow | HaltReason::OverflowPayment => "value overflow",
        _ => "out of gas",
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}
impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> napi::Result<&'a [u8]> {
        if self.at + n > self.b.len() {
            return Err(Error::new(
                Status::InvalidArg,
                "lists end early".to_string(),
            ));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> napi::Result<usize> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().unwrap()) as usize)
    }
}

/// `lists`: accessCount[4] { address[20] keyCount[4] key[32]… }… authCount[4] { chainId[32]
/// address[20] nonce[8] yParity[1] r[32] s[32] }…, big-endian.
fn read_lists(
    lists: &[u8],
) -> napi::Result<(
    AccessList,
    Vec<Either<SignedAuthorization, revm::context_interface::transaction::RecoveredAuthorization>>,
)> {
    let mut r = Reader { b: lists, at: 0 };
    let mut access = Vec::new();
    for _ in 0..r.u32()? {
        let address = Address::from_slice(r.take(20)?);
        let n = r.u32()?;
        let mut storage_keys = Vec::with_capacity(n);
        for _ in 0..n {
            storage_keys.push(B256::from_slice(r.take(32)?));
        }
        access.push(AccessListItem {
            address,
            storage_keys,
        });
    }
    let mut auths = Vec::new();
    for _ in 0..r.u32()? {
        let chain_id = U256::from_be_slice(r.take(32)?);
        let address = Address::from_slice(r.take(20)?);
        let nonce = be_u64(r.take(8)?);
        let y_parity = r.take(1)?[0];
        let rr = U256::from_be_slice(r.take(32)?);
        let s = U256::from_be_slice(r.take(32)?);
        auths.push(Either::Left(SignedAuthorization::new_unchecked(
            Authorization {
                chain_id,
                address,
                nonce,
            },
            y_parity,
            rr,
            s,
        )));
    }
    Ok((AccessList(access), auths))
}

/// Appends the changes, logs and addresses of a run (layout in `execute`'s comment).
struct Out(Vec<u8>);
impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: usize) {
        self.0.extend_from_slice(&(v as u32).to_be_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
}

const CHANGE_DELETE: u8 = 1;
const CHANGE_CODE: u8 = 2;

/// Runs one block transaction (layouts: EXEC_TX_LEN, `read_lists`, the `call` block layout) over
/// the callbacks' state and leaves that state alone. Answers a string when the transaction cannot
/// be included (revm's reason), else a Uint8Array:
///   status[1] (0 success, 1 revert, 2 halt) gasUsed[8] (after refunds and the EIP-7623 floor)
///   hasCreated[1] created[20] outputLen[4] output errorLen[2] error (the JS engine's words)
///   logCount[4] { address[20] topicCount[1] topic[32]… dataLen[4] data }…
///   accountCount[4] { address[20] flags[1] (1 delete: selfdestructed or touched and empty;
///     2 code changed) balance[32] nonce[8] [codeLen[4] code, with flag 2] slotCount[4]
///     { key[32] value[32] }… }… (the accounts the transaction touched, in no set order)
///   with `collect`: createdCount[4] address[20]… internalCount[4] address[20]…
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn execute(
    env: napi::Env,
    tx: &[u8],
    data: &[u8],
    lists: &[u8],
    block: &[u8],
    collect: bool,
    scratch: Unknown,
    account: Function<Unknown, Unknown>,
    code: Function<Unknown, Unknown>,
    storage: Function<Unknown, Unknown>,
    block_hash: Function<Unknown, Unknown>,
) -> napi::Result<Unknown<'static>> {
    let raw_env = env.raw();
    let (spec, block_env, chain_id, js) = enter(
        raw_env,
        (tx, EXEC_TX_LEN),
        block,
        &[SpecId::PRAGUE, SpecId::OSAKA, SpecId::CANCUN],
        scratch,
        &account,
        &code,
        &storage,
        &block_hash,
    )?;
    let (access_list, authorization_list) = read_lists(lists)?;
    let tx_type = tx[0];
    let max_fee = u128::from_be_bytes(tx[82..98].try_into().unwrap());
    let max_priority = u128::from_be_bytes(tx[98..114].try_into().unwrap());
    let tx_env = TxEnv {
        tx_type,
        caller: Address::from_slice(&tx[1..21]),
        kind: if tx[21] == 1 {
            TxKind::Call(Address::from_slice(&tx[22..42]))
        } else {
            TxKind::Create
        },
        value: U256::from_be_slice(&tx[42..74]),
        gas_limit: be_u64(&tx[74..82]),
        gas_price: max_fee,
        gas_priority_fee: if tx_type >= 2 {
            Some(max_priority)
        } else {
            None
        },
        nonce: be_u64(&tx[114..122]),
        chain_id: if tx[122] == 1 {
            Some(be_u64(&tx[123..131]))
        } else {
            None
        },
        data: Bytes::copy_from_slice(data),
        access_list,
        authorization_list,
        ..Default::default()
    };
    let mut evm = take_evm(&BLOCK_EVMS, spec, new_block_evm);
    evm.ctx.cfg.chain_id = chain_id;
    evm.ctx.block = block_env;
    evm.ctx.journaled_state.database = Host::new(js);
    evm.inspector = Collector {
        on: collect,
        ..Default::default()
    };
    let result = if collect {
        evm.inspect_tx(tx_env)
    } else {
        evm.transact(tx_env)
    };
    let host = std::mem::replace(
        &mut evm.ctx.journaled_state.database,
        Host::new(Callbacks::NONE),
    );
    let collector = std::mem::take(&mut evm.inspector);
    let done = match result {
        Ok(done) => done,
        Err(EVMError::Database(e)) => {
            // an abandoned run is not reused
            let status = if e.js {
                Status::PendingException
            } else {
                Status::GenericFailure
            };
            return Err(Error::new(status, e.message));
        }
        Err(e) => {
            BLOCK_EVMS.with(|b| b.borrow_mut().push((spec, evm)));
            return unsafe {
                Ok(Unknown::from_raw_unchecked(
                    raw_env,
                    string(raw_env, &e.to_string())?,
                ))
            };
        }
    };
    BLOCK_EVMS.with(|b| b.borrow_mut().push((spec, evm)));
    let mut out = Out(Vec::with_capacity(512));
    let gas_used = done.result.tx_gas_used();
    let (status, output, error, logs) = match done.result {
        ExecutionResult::Success { output, logs, .. } => (0u8, output, "", logs),
        ExecutionResult::Revert { output, .. } => (
            1,
            revm::context_interface::result::Output::Call(output),
            "revert",
            Vec::new(),
        ),
        ExecutionResult::Halt { reason, .. } => (
            2,
            revm::context_interface::result::Output::Call(Bytes::new()),
            halt_words(&reason),
            Vec::new(),
        ),
    };
    out.u8(status);
    out.u64(gas_used);
    let (created, output) = match output {
        revm::context_interface::result::Output::Create(b, a) => (a, b),
        revm::context_interface::result::Output::Call(b) => (None, b),
    };
    match created {
        Some(a) => {
            out.u8(1);
            out.bytes(a.as_slice());
        }
        None => {
            out.u8(0);
            out.bytes(&[0; 20]);
        }
    }
    out.u32(output.len());
    out.bytes(&output);
    out.0.extend_from_slice(&(error.len() as u16).to_be_bytes());
    out.bytes(error.as_bytes());
    out.u32(logs.len());
    for log in &logs {
        out.bytes(log.address.as_slice());
        out.u8(log.data.topics().len() as u8);
        for t in log.data.topics() {
            out.bytes(t.as_slice());
        }
        out.u32(log.data.data.len());
        out.bytes(&log.data.data);
    }
    let touched: Vec<_> = done.state.iter().filter(|(_, a)| a.is_touched()).collect();
    out.u32(touched.len());
    for (address, a) in touched {
        out.bytes(address.as_slice());
        let delete = a.is_selfdestructed() || a.is_empty();
        let before = host
            .loaded_code
            .get(address)
            .copied()
            .unwrap_or(KECCAK_EMPTY);
        let code_changed = !delete && a.info.code_hash != before;
        out.u8(if delete { CHANGE_DELETE } else { 0 } | if code_changed { CHANGE_CODE } else { 0 });
        out.bytes(&a.info.balance.to_be_bytes::<32>());
        out.u64(a.info.nonce);
        if code_changed {
            let code = a
                .info
                .code
                .as_ref()
                .map(|c| c.original_bytes())
                .unwrap_or_default();
            out.u32(code.len());
            out.bytes(&code);
        }
        if delete {
            out.u32(0);
            continue;
        }
        let changed: Vec<_> = a.storage.iter().filter(|(_, s)| s.is_changed()).collect();
        out.u32(changed.len());
        for (k, s) in changed {
            out.bytes(&k.to_be_bytes::<32>());
            out.bytes(&s.present_value.to_be_bytes::<32>());
        }
    }
    if collect {
        let mut c = collector;
        let beneficiaries: Vec<Address> = c.selfdestructs.iter().map(|(_, b)| *b).collect();
        for b in beneficiaries {
            c.note(b);
        }
        out.u32(c.created.len());
        for a in &c.created {
            out.bytes(a.as_slice());
        }
        out.u32(c.internal.len());
        for a in &c.internal {
            out.bytes(a.as_slice());
        }
    }
    unsafe {
        Ok(Unknown::from_raw_unchecked(
            raw_env,
            uint8_array(raw_env, &out.0)?,
        ))
    }
}
