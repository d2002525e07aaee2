// An SQS-compatible server (ElasticMQ) of one test file alone, stopped and started again on its data
// for outages: the one implementation the bench uses too (scripts/brokers/elasticmq.mjs).
export { startElasticMq, type ElasticMq, type ElasticMqOptions } from '../../scripts/brokers/elasticmq.mjs';
