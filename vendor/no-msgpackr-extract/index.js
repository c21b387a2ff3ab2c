// msgpackr treats a falsy export as "no native acceleration" and uses its JavaScript decoder.
module.exports = null;
