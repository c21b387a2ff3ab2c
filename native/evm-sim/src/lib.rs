//! revm behind N-API for chaind's simulations. One synchronous `call` runs one message on the JS
//! thread; every state read is a call back into JS (the same state view the JS simulation reads),
//! so nothing here holds chain state. Only compiled code is kept between calls: analysed bytecode
//! by code hash, which is exact because a hash names one code.
//!
//! The message and block context arrive packed in two byte arrays (layouts below, written by
//! src/execution/simulation/native-binding.ts) so a call converts two arguments instead of a dozen fields.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use napi::bindgen_prelude::{Buffer, Function, FnArgs};
use napi::{Error, Status};
use napi_derive::napi;
use revm::context::{BlockEnv, CfgEnv, Context, Journal, TxEnv};
use revm::context_interface::block::BlobExcessGasAndPrice;
use revm::context_interface::result::{EVMError, ExecutionResult, Output};
use revm::database_interface::{DBErrorMarker, Database};
use revm::primitives::hardfork::SpecId;
use revm::primitives::{Address, Bytes, StorageKey, StorageValue, TxKind, B256, KECCAK_EMPTY, U256};
use revm::state::{AccountInfo, Bytecode};
use revm::{ExecuteEvm, MainBuilder};

/// `tx`: from[20] hasTo[1] to[20] value[32] gasLimit[8] gasPrice[16], big-endian.
const TX_LEN: usize = 97;
/// `block`: number[8] timestamp[8] coinbase[20] basefee[8] gasLimit[8] prevrandao[32] chainId[8]
/// spec[1] (0 Prague, 1 Osaka), big-endian.
const BLOCK_LEN: usize = 93;
/// An account from the `account` callback: balance[32] nonce[8] codeHash[32].
const ACCOUNT_LEN: usize = 72;
/// Compiled code kept at most; the whole cache is dropped when it is full.
const CODE_CACHE_MAX: usize = 4096;

thread_local! {
    static CODE: RefCell<HashMap<B256, Bytecode>> = RefCell::new(HashMap::new());
}

#[derive(Debug)]
struct HostError {
    /// the JS callback threw: its exception is pending and is what the caller gets
    js: bool,
    message: String,
}
impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for HostError {}
impl DBErrorMarker for HostError {}

fn host_err(e: Error) -> HostError {
    HostError { js: e.status == Status::PendingException, message: e.reason.clone() }
}

type AccountFn<'a> = Function<'a, Buffer, Option<&'a [u8]>>;
type CodeFn<'a> = Function<'a, Buffer, &'a [u8]>;
type StorageFn<'a> = Function<'a, FnArgs<(Buffer, Buffer)>, &'a [u8]>;
type BlockHashFn<'a> = Function<'a, f64, Option<&'a [u8]>>;

/// revm's database: every read is a JS callback.
struct Host<'a> {
    account: &'a AccountFn<'a>,
    code: &'a CodeFn<'a>,
    storage: &'a StorageFn<'a>,
    block_hash: &'a BlockHashFn<'a>,
    /// addresses whose code hash was not in the cache, by hash (for code_by_hash)
    uncached: HashMap<B256, Address>,
    /// callbacks made in this call
    reads: u32,
}

impl Database for Host<'_> {
    type Error = HostError;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, HostError> {
        self.reads += 1;
        let raw = self.account.call(Buffer::from(address.as_slice())).map_err(host_err)?;
        let Some(raw) = raw else { return Ok(None) };
        if raw.len() != ACCOUNT_LEN {
            return Err(HostError { js: false, message: format!("account of {address}: {} bytes", raw.len()) });
        }
        let balance = U256::from_be_slice(&raw[..32]);
        let nonce = u64::from_be_bytes(raw[32..40].try_into().unwrap());
        let code_hash = B256::from_slice(&raw[40..72]);
        let code = if code_hash == KECCAK_EMPTY {
            Some(Bytecode::default())
        } else {
            CODE.with(|c| c.borrow().get(&code_hash).cloned())
        };
        if code.is_none() {
            self.uncached.insert(code_hash, address);
        }
        Ok(Some(AccountInfo { balance, nonce, code_hash, code, ..Default::default() }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, HostError> {
        if let Some(code) = CODE.with(|c| c.borrow().get(&code_hash).cloned()) {
            return Ok(code);
        }
        let Some(address) = self.uncached.get(&code_hash).copied() else {
            return Err(HostError { js: false, message: format!("code {code_hash} of no loaded account") });
        };
        self.reads += 1;
        let raw = self.code.call(Buffer::from(address.as_slice())).map_err(host_err)?;
        let code = Bytecode::new_raw(Bytes::copy_from_slice(raw));
        CODE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= CODE_CACHE_MAX {
                c.clear();
            }
            c.insert(code_hash, code.clone());
        });
        Ok(code)
    }

    fn storage(&mut self, address: Address, index: StorageKey) -> Result<StorageValue, HostError> {
        self.reads += 1;
        let key = index.to_be_bytes::<32>();
        let args = FnArgs::from((Buffer::from(address.as_slice()), Buffer::from(&key[..])));
        let raw = self.storage.call(args).map_err(host_err)?;
        if raw.len() > 32 {
            return Err(HostError { js: false, message: format!("storage of {address}: {} bytes", raw.len()) });
        }
        Ok(U256::from_be_slice(raw))
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, HostError> {
        self.reads += 1;
        let raw = self.block_hash.call(number as f64).map_err(host_err)?;
        Ok(match raw {
            Some(h) if h.len() == 32 => B256::from_slice(h),
            _ => B256::ZERO,
        })
    }
}

#[napi(object)]
pub struct CallOutput {
    /// 0 success, 1 revert, 2 halt, 3 invalid (the message could not run)
    pub status: u32,
    /// return data (success) or revert data
    pub output: Buffer,
    /// gas spent before refunds, intrinsic gas included
    pub gas_used: f64,
    /// the halt reason or why the message was invalid
    pub error: Option<String>,
    /// state callbacks made
    pub reads: u32,
}

fn be_u64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b.try_into().unwrap())
}

/// Runs one message (see the layouts above) and undoes it. A callback's exception is rethrown.
#[napi]
pub fn call<'a>(
    tx: &[u8],
    block: &[u8],
    data: &[u8],
    account: AccountFn<'a>,
    code: CodeFn<'a>,
    storage: StorageFn<'a>,
    block_hash: BlockHashFn<'a>,
) -> napi::Result<CallOutput> {
    if tx.len() != TX_LEN || block.len() != BLOCK_LEN {
        return Err(Error::new(Status::InvalidArg, format!("tx {} / block {} bytes", tx.len(), block.len())));
    }
    let spec = match block[92] {
        0 => SpecId::PRAGUE,
        1 => SpecId::OSAKA,
        s => return Err(Error::new(Status::InvalidArg, format!("unknown spec {s}"))),
    };
    let host = Host {
        account: &account,
        code: &code,
        storage: &storage,
        block_hash: &block_hash,
        uncached: HashMap::new(),
        reads: 0,
    };
    let mut cfg = CfgEnv::new_with_spec(spec);
    cfg.chain_id = be_u64(&block[84..92]);
    cfg.disable_nonce_check = true;
    cfg.disable_balance_check = true;
    cfg.disable_block_gas_limit = true;
    cfg.disable_eip3607 = true;
    cfg.tx_gas_limit_cap = Some(u64::MAX);
    let block_env = BlockEnv {
        number: U256::from(be_u64(&block[0..8])),
        timestamp: U256::from(be_u64(&block[8..16])),
        beneficiary: Address::from_slice(&block[16..36]),
        basefee: be_u64(&block[36..44]),
        gas_limit: be_u64(&block[44..52]),
        difficulty: U256::ZERO,
        prevrandao: Some(B256::from_slice(&block[52..84])),
        blob_excess_gas_and_price: Some(BlobExcessGasAndPrice::new_with_spec(0, spec)),
        ..Default::default()
    };
    let tx_env = TxEnv {
        tx_type: 0,
        caller: Address::from_slice(&tx[0..20]),
        kind: if tx[20] == 1 { TxKind::Call(Address::from_slice(&tx[21..41])) } else { TxKind::Create },
        value: U256::from_be_slice(&tx[41..73]),
        gas_limit: be_u64(&tx[73..81]),
        gas_price: u128::from_be_bytes(tx[81..97].try_into().unwrap()),
        data: Bytes::copy_from_slice(data),
        chain_id: None,
        ..Default::default()
    };
    let ctx = Context::<BlockEnv, TxEnv, CfgEnv, Host, Journal<Host>, ()>::new(host, spec)
        .with_cfg(cfg)
        .with_block(block_env);
    let mut evm = ctx.build_mainnet();
    let result = evm.transact(tx_env);
    let reads = evm.ctx.journaled_state.database.reads;
    let res = match result {
        Ok(r) => r.result,
        Err(EVMError::Database(e)) => {
            if e.js {
                return Err(Error::new(Status::PendingException, e.message));
            }
            return Err(Error::new(Status::GenericFailure, e.message));
        }
        Err(e) => {
            return Ok(CallOutput {
                status: 3,
                output: Buffer::from(Vec::new()),
                gas_used: 0.0,
                error: Some(e.to_string()),
                reads,
            })
        }
    };
    Ok(match res {
        ExecutionResult::Success { gas, output, .. } => {
            let bytes = match output {
                Output::Call(b) => b,
                Output::Create(b, _) => b,
            };
            CallOutput {
                status: 0,
                output: Buffer::from(bytes.to_vec()),
                gas_used: gas.total_gas_spent() as f64,
                error: None,
                reads,
            }
        }
        ExecutionResult::Revert { gas, output, .. } => CallOutput {
            status: 1,
            output: Buffer::from(output.to_vec()),
            gas_used: gas.total_gas_spent() as f64,
            error: None,
            reads,
        },
        ExecutionResult::Halt { reason, gas, .. } => CallOutput {
            status: 2,
            output: Buffer::from(Vec::new()),
            gas_used: gas.total_gas_spent() as f64,
            error: Some(format!("{reason:?}")),
            reads,
        },
    })
}
